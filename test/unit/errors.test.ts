import {
	excerptOf,
	mapApiError,
	readErrorBody,
	redactSecrets,
} from '../../nodes/LendasatBorrower/transport/errors';

const base = { operation: 'Contract → Create', requiredKeyType: 'borrower' as const };

describe('mapApiError', () => {
	it("reads the specification's {error, code, details} body and explains a known code", () => {
		const mapped = mapApiError({
			...base,
			statusCode: 400,
			body: {
				error: 'Invalid amount',
				code: 'INVALID_AMOUNT',
				details: 'Invalid loan amount: $50 not in range $100-$10000',
			},
		});
		expect(mapped.message).toBe(
			'The loan amount is outside what the offer allows (HTTP 400, INVALID_AMOUNT)',
		);
		expect(mapped.description).toContain("between the offer's loan_amount_min and loan_amount_max");
		expect(mapped.description).toContain('Invalid loan amount: $50 not in range $100-$10000');
		expect(mapped.httpCode).toBe('400');
		expect(mapped.code).toBe('INVALID_AMOUNT');
	});

	it("reads the live backend's {message} body", () => {
		const mapped = mapApiError({
			...base,
			statusCode: 400,
			body: { message: 'Loan duration cannot be zero' },
		});
		expect(mapped.message).toBe('Lendasat rejected the request (HTTP 400)');
		expect(mapped.description).toContain('Server said: "Loan duration cannot be zero".');
	});

	it('says which key type the operation needs on 401', () => {
		const master = mapApiError({
			operation: 'Account → Create',
			requiredKeyType: 'master',
			statusCode: 401,
			body: { message: 'Invalid API key' },
		});
		expect(master.message).toBe('Lendasat rejected the API key (HTTP 401)');
		expect(master.description).toContain('this operation needs a Partner Master Key');
		const borrower = mapApiError({ ...base, statusCode: 401, body: '' });
		expect(borrower.description).toContain('this operation needs a Borrower Key');
		expect(borrower.description).toContain('The server sent no explanation with status 401.');
	});

	it('names what was not found on 404', () => {
		const mapped = mapApiError({
			...base,
			statusCode: 404,
			notFound: 'loan offer 5f1b',
			body: { error: 'Not found', code: 'OFFER_NOT_FOUND', details: 'No such offer' },
		});
		expect(mapped.message).toBe('Not found: loan offer 5f1b (HTTP 404, OFFER_NOT_FOUND)');
	});

	it.each([
		[429, 'Lendasat is rate limiting this API key'],
		[500, 'Lendasat had an internal error'],
		[502, 'Lendasat is temporarily unavailable'],
		[503, 'Lendasat is temporarily unavailable'],
		[504, 'Lendasat is temporarily unavailable'],
		[418, 'Lendasat answered with an unexpected status'],
	])('has a headline for HTTP %i', (statusCode, headline) => {
		expect(mapApiError({ ...base, statusCode, body: undefined }).message).toBe(
			`${headline} (HTTP ${statusCode})`,
		);
	});

	it('shows a readable excerpt of an HTML page from a proxy', () => {
		const html =
			'<html><head><style>body{color:red}</style></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>';
		const mapped = mapApiError({ ...base, statusCode: 502, body: html });
		expect(mapped.description).toContain('Server answered: "502 Bad Gateway nginx".');
	});

	it('never crashes on truncated JSON, bytes, arrays or numbers', () => {
		expect(
			mapApiError({ ...base, statusCode: 500, body: '{"error":"Internal' }).description,
		).toContain('Server answered: "{"error":"Internal".');
		expect(
			mapApiError({ ...base, statusCode: 500, body: Buffer.from('{"message":"boom"}') })
				.description,
		).toContain('boom');
		expect(mapApiError({ ...base, statusCode: 500, body: [1, 2] }).description).toContain('[1,2]');
		expect(mapApiError({ ...base, statusCode: 500, body: 42 }).description).toContain('42');
	});

	it('never shows the API key, even when the server echoes it', () => {
		const secret = 'las-partner-master-1234567890';
		const mapped = mapApiError({
			...base,
			statusCode: 401,
			body: {
				error: `key ${secret} unknown`,
				code: 'UNAUTHORIZED',
				details: 'also lndst_sk_0123456789ab_abcDEF123 is bad',
			},
			secrets: [secret],
		});
		const shown = `${mapped.message} ${mapped.description}`;
		expect(shown).not.toContain(secret);
		expect(shown).not.toContain('lndst_sk_0123456789ab_abcDEF123');
		expect(shown).toContain('[redacted]');
	});
});

describe('readErrorBody', () => {
	it('keeps a body without known fields as an excerpt', () => {
		expect(readErrorBody({ foo: 'bar' })).toEqual({ excerpt: '{"foo":"bar"}' });
	});

	it('treats empty bodies as nothing', () => {
		expect(readErrorBody('')).toEqual({});
		expect(readErrorBody(undefined)).toEqual({});
		expect(readErrorBody('   ')).toEqual({});
	});
});

describe('excerptOf', () => {
	it('cuts long text to 200 characters', () => {
		const excerpt = excerptOf('x'.repeat(500));
		expect(excerpt).toHaveLength(201);
		expect(excerpt.endsWith('…')).toBe(true);
	});
});

describe('redactSecrets', () => {
	it('ignores secrets too short to be keys', () => {
		expect(redactSecrets('a b c', ['a'])).toBe('a b c');
	});
});

describe('unknown IDs in the live dialect', () => {
	it('reads 400 "Loan offer not found" as not found', () => {
		const mapped = mapApiError({
			...base,
			statusCode: 400,
			notFound: 'loan offer 5f1b',
			body: { message: 'Loan offer not found' },
		});
		expect(mapped.message).toBe('Not found: loan offer 5f1b (HTTP 400)');
	});

	it('reads 500 "Something went wrong" as a possibly unknown ID', () => {
		const mapped = mapApiError({
			...base,
			statusCode: 500,
			notFound: 'contract c1',
			body: { message: 'Something went wrong' },
		});
		expect(mapped.message).toBe(
			'Lendasat had an internal error — contract c1 may not exist (HTTP 500)',
		);
	});

	it('keeps other 400s as they are', () => {
		const mapped = mapApiError({
			...base,
			statusCode: 400,
			notFound: 'loan offer 5f1b',
			body: { message: 'Loan duration cannot be zero' },
		});
		expect(mapped.message).toBe('Lendasat rejected the request (HTTP 400)');
	});
});

describe("mapApiError: the server's words once", () => {
	it('drops a part that another part begins with', () => {
		const mapped = mapApiError({
			operation: 'Contract → Create',
			statusCode: 400,
			body: {
				error: 'Invalid loan amount',
				code: 'INVALID_AMOUNT',
				details: 'Invalid loan amount: $50 not in range $100-$10000',
			},
		});
		expect(mapped.description).toContain(
			'Server said: "Invalid loan amount: $50 not in range $100-$10000".',
		);
		expect(mapped.description).not.toContain('Invalid loan amount —');
	});
});
