import {
	excerptOf,
	mapApiError,
	readErrorBody,
	containsSecret,
	redactSecrets,
} from '../../nodes/LendasatBorrower/transport/errors';
import { seededRandom } from '../helpers/seededRandom';

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
	const KEY = 'lndst_sk_be30abf9b27c_Vv+Xb/qh=Mk';

	it('ignores secrets too short to be keys', () => {
		expect(redactSecrets('a b c', ['a'])).toBe('a b c');
	});

	it.each([
		['as it is', KEY],
		['percent-encoded in upper case', encodeURIComponent(KEY)],
		[
			'percent-encoded in lower case',
			encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
		],
		[
			'every character percent-encoded',
			[...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
		],
		[
			'JSON-escaped character by character',
			[...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
		],
		[
			'JSON-escaped in upper-case hex',
			[...KEY]
				.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)
				.join(''),
		],
		['with escaped slashes', KEY.replace(/\//g, '\\/')],
		['in base64', Buffer.from(KEY).toString('base64')],
		['in URL-safe base64 without padding', Buffer.from(KEY).toString('base64url')],
	])('removes a key written %s', (_form, written) => {
		const text = `Request failed for ${written}, try again`;
		const redacted = redactSecrets(text, [KEY]);
		expect(redacted).toBe('Request failed for [redacted], try again');
		expect(containsSecret(text, [KEY])).toBe(true);
	});

	it.each([
		['a partner master key', 'las-fRBjjmgyCx6uZoJ7SxB0'],
		['a legacy key', 'ldst-acc-3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e'],
		['a borrower key', 'lndst_sk_27ccbd52be36_1dp7GfZ6hVWc1MKIlijwa2DXGdMVpnxayJgSWYBouCh'],
	])('removes anything shaped like %s, even when not told the value', (_kind, key) => {
		expect(redactSecrets(`bad key ${key}!`, [])).toBe('bad key [redacted]!');
	});

	it('leaves words that only look a little like a key alone', () => {
		expect(redactSecrets('atlas-route and las-', [])).toBe('atlas-route and las-');
	});

	it('finds a key every time the same list of secrets is asked again, as a run asks for every answer', () => {
		const secrets = [KEY];
		const texts = [`{"note":"${KEY}"}`, `x ${encodeURIComponent(KEY)}`, `{"note":"${KEY}"}`];
		for (const text of [...texts, ...texts]) expect(containsSecret(text, secrets)).toBe(true);
		for (const text of texts) expect(redactSecrets(text, secrets)).not.toContain('be30abf9b27c');
		expect(containsSecret('{"id":"7a3f"}', secrets)).toBe(false);
	});

	it('finds a key in a text without % or \\ as it is or in base64, and nowhere else', () => {
		const secrets = [KEY, 'abc'];
		for (const written of [KEY, Buffer.from(KEY).toString('base64url')])
			expect(containsSecret(`{"note":"${written}"}`, secrets)).toBe(true);
		expect(containsSecret(`{"note":"${KEY.slice(0, -1)}"}`, secrets)).toBe(false);
		// A secret shorter than 4 characters is not looked for: it would be found everywhere.
		expect(containsSecret('{"abc":1}', secrets)).toBe(false);
	});

	it('gives the same verdict with or without a % or \\ elsewhere in the text', () => {
		const next = seededRandom(7);
		const random = (length: number) =>
			Array.from({ length }, () => String.fromCharCode(32 + Math.floor(next() * 95)))
				.join('')
				.replace(/[%\\]/g, '_');
		for (let round = 0; round < 300; round++) {
			const secret = random(4 + Math.floor(next() * 12));
			const around = random(40);
			const inside = next() < 0.5;
			const text = inside ? `${around.slice(0, 20)}${secret}${around.slice(20)}` : around;
			const expected = text.includes(secret);
			expect(containsSecret(text, [secret])).toBe(expected);
			expect(containsSecret(`${text} 100%`, [secret])).toBe(expected);
			expect(containsSecret(`${text} \\n`, [secret])).toBe(expected);
		}
	});

	it('follows a list of secrets that changed since it was last asked', () => {
		const secrets = ['not-the-key'];
		const text = `Request failed for ${KEY}`;
		expect(containsSecret(text, secrets)).toBe(false);
		secrets[0] = KEY;
		expect(containsSecret(text, secrets)).toBe(true);
		expect(redactSecrets(text, secrets)).toBe('Request failed for [redacted]');
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
	it('drops a part whose words all recur in a longer one', () => {
		const mapped = mapApiError({
			operation: 'Contract → Broadcast Claim',
			statusCode: 404,
			body: {
				error: 'Contract not found',
				code: 'CONTRACT_NOT_FOUND',
				details: 'Contract 7a3f2c1e not found',
			},
		});
		expect(mapped.description).toContain('Server said: "Contract 7a3f2c1e not found".');
		expect(mapped.description).not.toContain('Contract not found —');
	});

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
