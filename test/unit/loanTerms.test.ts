import {
	checkInterestRate,
	checkLoanToValue,
	checkNpub,
	checkRange,
} from '../../nodes/LendasatBorrower/validation/checks';

/** NIP-19's example: npub for the x-only key 7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e. */
const NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
/** The same 32 bytes with a bech32m checksum instead of bech32. */
const NPUB_BECH32M = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qhszdw2';

describe('checkNpub', () => {
	it.each([NPUB, NPUB.toUpperCase(), ` ${NPUB} `])('accepts %j', (value) => {
		expect(checkNpub(value)).toBeNull();
	});

	it.each([
		['', /Must not be empty/],
		[42, /Expected a Nostr public key as text/],
		[
			'7e7e9c42a91bfef19fa929e5fda1b72e0ebc1a4c1141673e2794234d86addf4e',
			/hex key; enter its npub1… form/,
		],
		[
			'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5',
			/private key \(nsec1…\): never enter it/,
		],
		[`${NPUB.slice(0, -1)}h`, /not a valid npub: .*checksum/i],
		// 31 bytes, correctly checksummed.
		[
			'npub1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqkxnxjx',
			/does not hold a 32-byte key/,
		],
		// 32 bytes of ff, correctly checksummed: not an x coordinate on secp256k1.
		[
			'npub1lllllllllllllllllllllllllllllllllllllllllllllllllllsq7lrjw',
			/not a point on the secp256k1 curve/,
		],
		['npub 10elf', /contains spaces/],
		['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', /does not start with npub1/],
	])('refuses %j', (value, problem) => {
		expect(checkNpub(value)).toMatch(problem);
	});

	it('never repeats an nsec', () => {
		const nsec = 'nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5';
		expect(checkNpub(nsec)).not.toContain(nsec.slice(5, 15));
	});

	it('refuses the bech32m checksum an npub does not use', () => {
		expect(checkNpub(NPUB_BECH32M)).toMatch(/uses the bech32m checksum; an npub uses bech32/);
	});
});

describe('checkLoanToValue and checkInterestRate', () => {
	it.each([0, 0.5, 1, '0.75', 0.0001])('an LTV of %j is fine', (value) =>
		expect(checkLoanToValue(value)).toBeNull(),
	);
	it.each([
		[-0.2, /not be negative/],
		[50, /more than 1: enter the loan-to-value ratio as a decimal, e\.g\. 0\.5 for 50%/],
		['half', /Expected a decimal like 0\.5/],
		['0,5', /uses a comma/],
	])('an LTV of %j is refused', (value, problem) =>
		expect(checkLoanToValue(value)).toMatch(problem),
	);

	it.each([0, 0.12, 1])('an interest rate of %j is fine', (value) =>
		expect(checkInterestRate(value)).toBeNull(),
	);
	it.each([
		[12, /0\.12 for 12%/],
		[-0.01, /Must not be negative/],
	])('an interest rate of %j is refused', (value, problem) =>
		expect(checkInterestRate(value)).toMatch(problem),
	);
});

describe('checkRange', () => {
	it('accepts a minimum up to the maximum', () => {
		expect(checkRange(5, 5, 'Max')).toBeNull();
		expect(checkRange(1, 5, 'Max')).toBeNull();
	});
	it('names the maximum when the minimum is above it; the minimum is named by the error around it', () => {
		expect(checkRange(6, 5, 'Max Loan Amount')).toBe(
			'6 is more than Max Loan Amount (5); the minimum must not exceed the maximum.',
		);
	});
});
