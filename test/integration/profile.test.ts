import { SEED_IDS, startSandbox, type Sandbox } from '../../dev/sandbox/server';
import { borrowerOf, operationRunner } from '../helpers/operation';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * Public profiles: a lender's before taking its offer, a borrower's own. Against the sandbox's live
 * dialect (hub 0.8.2's lender_profiles.rs, borrower_profiles.rs), the specification dialect once.
 */

let sandbox: Sandbox;

useFakeTime();

beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());
beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ dialect: 'live' });
});

const { lenders, users, offers } = SEED_IDS;

const profile = operationRunner(() => sandbox, 'profile');

describe('Profile → Get Lender', () => {
	it('shows the lender of an offer before its loan is taken: name, track record and whether Lendasat vetted it', async () => {
		const lenderOfOffer = sandbox.state.offers.get(offers.usdcPolygon)!.lender;

		const { items, error } = await profile('getLender', { lenderId: lenderOfOffer.id });

		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				id: lenders.northwind,
				name: 'Northwind Lending',
				successful_contracts: 128,
				timezone: 'Europe/Vienna',
				joined_at: lenderOfOffer.joined_at,
				vetted: true,
			},
		]);
		expect(sandbox.requests).toHaveLength(1);
		const [request] = sandbox.requests;
		expect(request.method).toBe('GET');
		expect(request.path).toBe(`/api/profiles/lenders/${lenders.northwind}`);
		expect(request.headers['x-api-key']).toBe(sandbox.keys.borrower);
	});

	it('sends the ID trimmed and in lower case, as Lendasat stores it', async () => {
		const { items } = await profile('getLender', {
			lenderId: `  ${lenders.alpenBank.toUpperCase()} `,
		});

		expect(items[0]).toMatchObject({ id: lenders.alpenBank, vetted: false, timezone: null });
		expect(sandbox.requests[0].path).toBe(`/api/profiles/lenders/${lenders.alpenBank}`);
	});

	it("names the lender it could not find, though Lendasat answers an unknown ID with 500 'Something went wrong'", async () => {
		const unknown = '1e000000-0000-4000-8000-0000000000ff';

		const { items, error, description } = await profile('getLender', { lenderId: unknown });

		expect(items).toEqual([]);
		expect(error?.message).toBe(
			`Lendasat had an internal error — lender ${unknown} may not exist (HTTP 500)`,
		);
		expect(description).toContain('Server said: "Something went wrong".');
	});

	it('says "Not found" where the server answers 404 (the specification dialect)', async () => {
		sandbox.configure({ dialect: 'spec' });
		const unknown = '1e000000-0000-4000-8000-0000000000ff';

		const { error } = await profile('getLender', { lenderId: unknown });

		expect(error?.message).toBe(`Not found: lender ${unknown} (HTTP 404, NOT_FOUND)`);
	});
});

describe('Profile → Get Borrower', () => {
	it('shows your own profile: contracts that are running or closed count as successful', async () => {
		const { items, error } = await profile('getBorrower', { borrowerId: users.borrower });

		expect(error).toBeUndefined();
		const me = sandbox.state.users.get(users.borrower)!;
		// The seed: PrincipalGiven twice (one in a margin call) and Closed once; Requested and Approved do not count.
		expect(items).toEqual([
			{
				id: users.borrower,
				name: me.name,
				successful_contracts: 3,
				timezone: 'Europe/Berlin',
				joined_at: me.created_at,
			},
		]);
		expect(sandbox.requests[0].path).toBe(`/api/profiles/borrowers/${users.borrower}`);
	});

	it("shows another borrower's public profile", async () => {
		const { items } = await profile('getBorrower', { borrowerId: users.otherBorrower });
		expect(items[0]).toMatchObject({ id: users.otherBorrower, timezone: 'America/New_York' });
	});
});

describe('Profile: bad input never reaches the API', () => {
	it.each([
		['getLender', 'Lender ID', 'Northwind Lending', /contains spaces/],
		['getLender', 'Lender ID', '   ', /Must not be empty/],
		['getBorrower', 'Borrower ID', '1e0000000000400080000000000000001', /is not an ID of the form/],
		['getBorrower', 'Borrower ID', '1e000000000040008000000000000001', /is missing the dashes/],
	] as const)('%s: %s = %j', async (operation, label, value, problem) => {
		const parameter = operation === 'getLender' ? 'lenderId' : 'borrowerId';
		const { error, description, sent } = await profile(operation, { [parameter]: value });

		expect(error?.message).toBe(`Invalid ${label} [item 0]`);
		expect(description).toMatch(problem);
		expect(sent).toEqual([]);
	});

	it('refuses a Partner Master Key before sending anything', async () => {
		const { error, sent } = await profile(
			'getLender',
			{ lenderId: lenders.northwind },
			{ credential: { ...borrowerOf(sandbox, sandbox.keys.master), keyType: 'master' } },
		);

		expect(error?.message).toBe(
			'Profile → Get Lender needs a Borrower Key, but the credential holds a Partner Master Key',
		);
		expect(sent).toEqual([]);
	});
});

describe('Profile: answers the node cannot use', () => {
	it.each([
		['message-body', /error message, although the status says success/],
		['array', /an array of 2 where a JSON object belongs/],
	] as const)('a 200 with %s is an error, never an item', async (body200, problem) => {
		sandbox.configure({ faults: [{ kind: 'bad-200', body200, path: '/api/profiles' }] });

		const { items, error, description } = await profile('getLender', {
			lenderId: lenders.northwind,
		});

		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(description).toMatch(problem);
	});
});

describe("the sandbox's live dialect, as hub 0.8.2 answers", () => {
	it('takes any text as the ID and answers an unknown one 500 {message} (lender_profiles.rs:39-47, 89-99)', async () => {
		const response = await fetch(`${sandbox.url}/api/profiles/borrowers/not-a-uuid`, {
			headers: { 'x-api-key': sandbox.keys.borrower },
		});
		expect(response.status).toBe(500);
		expect(await response.json()).toEqual({ message: 'Something went wrong' });
	});

	it('needs a key (routes/borrower.rs:264-273)', async () => {
		const response = await fetch(`${sandbox.url}/api/profiles/lenders/${lenders.northwind}`);
		expect(response.status).toBe(401);
	});
});
