import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { buildPsbt } from '../../dev/sandbox/bitcoin';
import { SEED_IDS, startSandbox, type Contract, type Sandbox } from '../../dev/sandbox/server';
import { standInSign, standInSignArk } from '../../dev/sandbox/standInSigner';
import { runWorkflow, singleNodeWorkflow } from '../../dev/harness/n8n';
import { LendasatBorrower } from '../../nodes/LendasatBorrower/LendasatBorrower.node';
import { operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { parsePsbtText } from '../../nodes/LendasatBorrower/validation/psbt';
import { whatTheModelReads } from '../helpers/aiTool';
import { NODE, borrowerOf, operationRunner } from '../helpers/operation';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * Arkade collateral through n8n-core, against the sandbox's live dialect: taking an ArkadeBtc offer
 * with an Ark address, repaying, and getting the collateral back off-chain (Get Ark Claim PSBTs →
 * a signer outside n8n → Broadcast Ark Claim), or, once the VTXOs became recoverable, through a
 * settlement (Get Ark Settlement → signer → Finish Ark Settlement). The sandbox's stand-in signer
 * plays the borrower's wallet; the node never holds a key.
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

const OFFERS = SEED_IDS.offers;
const CONTRACTS = SEED_IDS.contracts;
const TXID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
/** Arkade's documented keys as a test-network Ark address (encoded in test/unit/bitcoin.test.ts). */
const ARK_ADDRESS =
	'tark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt846qj6x';
const ONCHAIN_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const PUBLIC_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const LIVE_FIELDS = {
	repaymentAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
	borrowerPublicKey: PUBLIC_KEY,
	derivationPath: "m/83696968'/11811'/0/0",
	loanType: 'StableCoin',
};

const borrower = () => borrowerOf(sandbox);

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });

const runContract = operationRunner(() => sandbox, 'contract');

/** Runs one contract operation (node version 1.1) and returns its items, error and the whole run; no key is ever visible. */
const contract = async (
	operation: string,
	parameters: Record<string, unknown> = {},
	items?: Record<string, unknown>[],
) => await runContract(operation, parameters, { items, typeVersion: 1.1 });

/** Contract → Create for `offer` with `collateralAddress` and everything else the live backend needs. */
const take = (offer: string, collateralAddress: string, items?: Record<string, unknown>[]) =>
	contract(
		'create',
		{
			loanId: byId(offer),
			loanAmount: 1000,
			durationDays: 30,
			additionalFields: { ...LIVE_FIELDS, collateralAddress },
		},
		items,
	);

function stored(id: string): Contract {
	const entry = sandbox.state.contracts.get(id);
	if (!entry) throw new Error(`no contract ${id} in the sandbox`);
	return JSON.parse(JSON.stringify(entry.contract)) as Contract;
}

const received = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);
const describedBy = (error: unknown) =>
	String((error as { description?: unknown } | undefined)?.description ?? '');

/** The lender paid out an Arkade loan (USDC on Polygon, one bullet installment) the borrower now repays. */
function runningArkadeLoan(): Contract {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.arkade,
		loan_amount: 1000,
		duration_days: 30,
		status: 'PrincipalGiven',
	});
}

/** Repays an installment in bitcoin through the node and lets the lender confirm: RepaymentConfirmed. */
async function repay(id: string): Promise<void> {
	const invoice = await contract('createBtcInvoice', { contractId: byId(id) });
	const reported = await contract('reportBtcInvoicePaid', {
		contractId: byId(id),
		invoiceId: invoice.items[0].id,
		txid: TXID,
	});
	expect(reported.error).toBeUndefined();
	sandbox.admin.confirmInstallments(id);
}

async function repaidArkadeLoan(): Promise<Contract> {
	const loan = runningArkadeLoan();
	await repay(loan.id);
	sandbox.requests.length = 0;
	return stored(loan.id);
}

/** What Get Ark Claim PSBTs gives for a contract, signed by the stand-in signer. */
async function signedClaim(id: string) {
	const { items, error } = await contract('getArkClaimPsbts', { contractId: byId(id) });
	expect(error).toBeUndefined();
	const [claim] = items as Array<{ ark_psbt: string; checkpoint_psbts: string[] }>;
	return {
		unsigned: claim,
		ark_psbt: standInSignArk(claim.ark_psbt),
		checkpoint_psbts: claim.checkpoint_psbts.map(standInSignArk),
	};
}

describe('the Arkade story: take an Arkade offer with an Ark address, repay, get the collateral back off-chain', () => {
	it('takes the ArkadeBtc offer with an Ark address, repays, claims through claim-ark and broadcast-claim-ark, and sees the contract close', async () => {
		const created = await take(OFFERS.arkade, ARK_ADDRESS);
		expect(created.error).toBeUndefined();
		const id = String(created.items[0].id);
		// The offer is read first, with the filters that let an Arkade offer through.
		expect(received()).toEqual([`GET /api/offers/${OFFERS.arkade}`, 'POST /api/contracts']);
		expect(sandbox.requests[0].query).toEqual({ collateral_asset_type: 'Any', loan_type: 'All' });
		expect(sandbox.requests[1].body).toMatchObject({
			borrower_btc_address: ARK_ADDRESS,
			collateral_address: ARK_ADDRESS,
		});
		expect(stored(id)).toMatchObject({
			collateral_asset: 'ArkadeBtc',
			borrower_btc_address: ARK_ADDRESS,
			requires_ark_settlement: false,
		});

		// The borrower sends the collateral to the escrow's Ark address and the lender pays out.
		expect(stored(id).contract_address ?? '').toBe('');
		sandbox.admin.setContractStatus(id, 'PrincipalGiven');
		expect(stored(id).contract_address).toMatch(/^tark1/);
		await repay(id);
		expect(stored(id).status).toBe('RepaymentConfirmed');

		sandbox.requests.length = 0;
		const psbts = await contract('getArkClaimPsbts', { contractId: byId(id) });
		expect(psbts.error).toBeUndefined();
		expect(received()).toEqual([`GET /api/contracts/${id}/claim-ark`]);
		expect(sandbox.requests[0].query).toEqual({});
		expect(psbts.items).toEqual([
			{
				id,
				ark_psbt: expect.stringMatching(/^70736274ff/),
				checkpoint_psbts: [
					expect.stringMatching(/^70736274ff/),
					expect.stringMatching(/^70736274ff/),
				],
				borrower_pk: PUBLIC_KEY,
				derivation_path: LIVE_FIELDS.derivationPath,
			},
		]);

		// The borrower's Ark wallet signs every PSBT (here the sandbox's stand-in), outside n8n.
		const claim = psbts.items[0] as { ark_psbt: string; checkpoint_psbts: string[] };
		const signed = {
			id,
			ark_psbt: standInSignArk(claim.ark_psbt),
			checkpoint_psbts: claim.checkpoint_psbts.map(standInSignArk),
		};

		sandbox.requests.length = 0;
		const broadcast = await contract(
			'broadcastArkClaim',
			{
				contractId: byId('={{ $json.id }}'),
				arkPsbt: '={{ $json.ark_psbt }}',
				checkpointPsbts: '={{ $json.checkpoint_psbts }}',
			},
			[signed],
		);
		expect(broadcast.error).toBeUndefined();
		expect(received()).toEqual([`POST /api/contracts/${id}/broadcast-claim-ark`]);
		expect(sandbox.requests[0].body).toEqual({
			ark_psbt: signed.ark_psbt,
			checkpoint_psbts: signed.checkpoint_psbts,
		});
		const arkTxid = (parsePsbtText(claim.ark_psbt) as { unsignedTx: { txid: string } }).unsignedTx
			.txid;
		expect(broadcast.items).toEqual([
			{ id, txid: arkTxid, status: 'ClosingByClaim', broadcast: true },
		]);
		expect(stored(id).status).toBe('ClosingByClaim');

		sandbox.admin.confirmClaim(id);
		expect((await contract('get', { contractId: byId(id) })).items[0]).toMatchObject({
			status: 'Closed',
		});
	});

	it('takes checkpoint PSBTs one per line as well, and base64 as the signer may give them', async () => {
		const loan = await repaidArkadeLoan();
		const signed = await signedClaim(loan.id);
		const base64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
		sandbox.requests.length = 0;
		const { items, error } = await contract('broadcastArkClaim', {
			contractId: byId(loan.id),
			arkPsbt: `  ${base64(signed.ark_psbt)
				.match(/.{1,64}/g)!
				.join('\n')}\n`,
			checkpointPsbts: `${signed.checkpoint_psbts[0].toUpperCase()}\n\n${base64(signed.checkpoint_psbts[1])}\n`,
		});
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ status: 'ClosingByClaim' });
		// Sent as given (the route takes hex and base64), without white space, hex in lower case.
		expect(sandbox.requests[0].body).toEqual({
			ark_psbt: base64(signed.ark_psbt),
			checkpoint_psbts: [signed.checkpoint_psbts[0], base64(signed.checkpoint_psbts[1])],
		});
	});
});

describe('Contract → Create: the Collateral Address is of the kind the offer takes', () => {
	it('refuses an on-chain address for an Arkade offer after reading the offer, and sends nothing else', async () => {
		const { error } = await take(OFFERS.arkade, ONCHAIN_ADDRESS);
		expect(error?.message).toBe('Invalid Collateral Address [item 0]');
		expect(describedBy(error)).toContain(
			'Collateral Address: This offer takes Arkade collateral: enter an Ark address (ark1… or tark1…) from your Ark wallet',
		);
		expect(received()).toEqual([`GET /api/offers/${OFFERS.arkade}`]);
	});

	it('refuses an Ark address for an on-chain offer, and sends nothing else', async () => {
		const { error } = await take(OFFERS.usdcPolygon, ARK_ADDRESS);
		expect(error?.message).toBe('Invalid Collateral Address [item 0]');
		expect(describedBy(error)).toContain(
			'This offer takes on-chain Bitcoin collateral: enter a Bitcoin address like',
		);
		expect(received()).toEqual([`GET /api/offers/${OFFERS.usdcPolygon}`]);
	});

	it('fails the item when the offer cannot be reached, saying nothing was sent', async () => {
		const result = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'create',
					loanId: byId(OFFERS.arkade),
					loanAmount: 1000,
					durationDays: 30,
					additionalFields: { ...LIVE_FIELDS, collateralAddress: ARK_ADDRESS },
					options: { maxRetries: 0 },
				},
				{ typeVersion: 1.1 },
			),
			{
				credential: { ...borrower(), baseUrl: 'http://127.0.0.1:9' },
			},
		);
		expect(describedBy(result.error)).toContain('that read failed, so nothing was sent');
		expect(sandbox.requests).toHaveLength(0);
	});

	it('reads each offer once per run, whatever the number of items', async () => {
		const { items, error } = await contract(
			'create',
			{
				loanId: byId('={{ $json.offer }}'),
				loanAmount: 200,
				durationDays: 30,
				additionalFields: { ...LIVE_FIELDS, collateralAddress: '={{ $json.address }}' },
			},
			[
				{ offer: OFFERS.arkade, address: ARK_ADDRESS },
				{ offer: OFFERS.usdcPolygon, address: ONCHAIN_ADDRESS },
				{ offer: OFFERS.arkade, address: ARK_ADDRESS },
				{ offer: OFFERS.usdcPolygon, address: ONCHAIN_ADDRESS },
			],
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(4);
		expect(
			received()
				.filter((line) => line.startsWith('GET /api/offers'))
				.sort(),
		).toEqual([`GET /api/offers/${OFFERS.usdcPolygon}`, `GET /api/offers/${OFFERS.arkade}`].sort());
		expect(received().filter((line) => line === 'POST /api/contracts')).toHaveLength(4);
	});

	it('accepts either kind where the server has no offer route (404), e.g. one with only the specification', async () => {
		sandbox.configure({
			dialect: 'spec',
			faults: [{ kind: '404', method: 'GET', path: '/api/offers', times: 5 }],
		});
		const { items, error } = await take(OFFERS.usdcPolygon, ARK_ADDRESS);
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ status: 'pending' });
		expect(received()).toEqual([`GET /api/offers/${OFFERS.usdcPolygon}`, 'POST /api/contracts']);
		expect(sandbox.requests[1].body).toMatchObject({ collateral_address: ARK_ADDRESS });
	});

	it('accepts either kind where the offer says nothing about its collateral', async () => {
		sandbox.configure({ dialect: 'spec' });
		const offer = sandbox.admin.addOffer({ collateral_asset: undefined });
		const { error } = await take(offer.id, ARK_ADDRESS);
		expect(error).toBeUndefined();
		expect(received()).toEqual([`GET /api/offers/${offer.id}`, 'POST /api/contracts']);
	});

	it('fails the item when the offer cannot be read for another reason (a 500), rather than guess', async () => {
		sandbox.configure({ faults: [{ kind: '500', method: 'GET', path: '/api/offers', times: 10 }] });
		const { error } = await contract('create', {
			loanId: byId(OFFERS.arkade),
			loanAmount: 1000,
			durationDays: 30,
			additionalFields: { ...LIVE_FIELDS, collateralAddress: ARK_ADDRESS },
			options: { maxRetries: 1, initialDelay: 1 },
		});
		expect(error?.message).toMatch(/internal error/);
		expect(describedBy(error)).toContain(
			`the node reads loan offer ${OFFERS.arkade} to learn whether its collateral goes back to an Ark address (Arkade) or an on-chain Bitcoin address; that read failed, so nothing was sent`,
		);
		expect(received().every((line) => line.startsWith('GET /api/offers/'))).toBe(true);
	});

	it("refuses an offer answer that is Lendasat's error body sent with 200", async () => {
		sandbox.configure({
			faults: [{ kind: 'bad-200', body200: 'error-body', method: 'GET', path: '/api/offers' }],
		});
		const { error } = await take(OFFERS.arkade, ARK_ADDRESS);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(received()).toEqual([`GET /api/offers/${OFFERS.arkade}`]);
	});

	it('reads no offer without a Collateral Address', async () => {
		sandbox.configure({ dialect: 'spec' });
		const { error } = await contract('create', {
			loanId: byId(OFFERS.arkade),
			loanAmount: 1000,
			durationDays: 30,
		});
		expect(error).toBeUndefined();
		expect(received()).toEqual(['POST /api/contracts']);
	});
});

describe('Contract → Get Ark Claim PSBTs and Broadcast Ark Claim: bad input never reaches Lendasat', () => {
	let loan: Contract;
	let signed: Awaited<ReturnType<typeof signedClaim>>;
	beforeEach(async () => {
		loan = await repaidArkadeLoan();
		signed = await signedClaim(loan.id);
		sandbox.requests.length = 0;
	});

	const broadcast = (arkPsbt: unknown, checkpointPsbts: unknown) =>
		contract('broadcastArkClaim', { contractId: byId(loan.id), arkPsbt, checkpointPsbts });

	it.each([
		[
			'an Ark PSBT that is no PSBT',
			() => ['hello', signed.checkpoint_psbts],
			'Invalid Signed Ark PSBT [item 0]',
			'Signed Ark PSBT: "hello" is not a PSBT: it starts neither with 70736274ff (hex) nor with cHNidP8 (base64)',
		],
		[
			'an empty Ark PSBT',
			() => ['  ', signed.checkpoint_psbts],
			'Invalid Signed Ark PSBT [item 0]',
			'Must not be empty.',
		],
		[
			'a finished transaction instead of the Ark PSBT',
			() => [standInSign(onchainPsbt()), signed.checkpoint_psbts],
			'Invalid Signed Ark PSBT [item 0]',
			'this is a finished transaction, not a PSBT: give the signed PSBT itself, without finalizing or extracting it.',
		],
		[
			'hex with a digit missing',
			() => [signed.ark_psbt.slice(0, -1), signed.checkpoint_psbts],
			'Invalid Signed Ark PSBT [item 0]',
			'its hex has an odd number of hexadecimal digits',
		],
		[
			'base64 cut off',
			() => [
				Buffer.from(signed.ark_psbt, 'hex').toString('base64').slice(0, -2),
				signed.checkpoint_psbts,
			],
			'Invalid Signed Ark PSBT [item 0]',
			'its base64 is cut off',
		],
		[
			'no checkpoint PSBTs',
			() => [signed.ark_psbt, '={{ "" }}'],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'Must not be empty: give every checkpoint PSBT Get Ark Claim PSBTs returned',
		],
		[
			'an empty list of checkpoint PSBTs',
			() => [signed.ark_psbt, []],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'The list is empty, but Lendasat needs every checkpoint PSBT',
		],
		[
			'an empty JSON list',
			() => [signed.ark_psbt, '[]'],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'The list is empty',
		],
		[
			'a JSON list that does not parse',
			() => [signed.ark_psbt, '["70736274ff",'],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'starts like a JSON array but is not one',
		],
		[
			'a checkpoint that is no PSBT',
			() => [signed.ark_psbt, [signed.checkpoint_psbts[0], 'cHNidP8=']],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'PSBT 2 of 2 ("cHNidP8=") is not a PSBT',
		],
		[
			'a checkpoint missing',
			() => [signed.ark_psbt, signed.checkpoint_psbts.slice(1)],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'The Signed Ark PSBT spends 2 checkpoint transactions, but 1 checkpoint PSBT was given.',
		],
		[
			'the Ark PSBT among the checkpoints',
			() => [signed.ark_psbt, [signed.checkpoint_psbts[0], signed.ark_psbt]],
			'Invalid Signed Checkpoint PSBTs [item 0]',
			'PSBT 2 of 2 is not a checkpoint the Signed Ark PSBT spends.',
		],
	])('%s', async (_case, values, message, problem) => {
		const [ark, checkpoints] = values();
		const { error } = await broadcast(ark, checkpoints);
		expect(error?.message).toBe(message);
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
		expect(stored(loan.id).status).toBe('RepaymentConfirmed');
	});

	it("leaves an empty field to n8n's own required check", async () => {
		const { error } = await broadcast(signed.ark_psbt, '');
		expect(error?.message).toContain('Parameter "Signed Checkpoint PSBTs" is required.');
		expect(sandbox.requests).toHaveLength(0);
	});

	it('sends PSBTs the borrower never signed once, and explains the refusal without sending again', async () => {
		const { error } = await broadcast(signed.unsigned.ark_psbt, signed.unsigned.checkpoint_psbts);
		expect(error?.message).toBe('Lendasat could not complete the Ark claim (HTTP 500)');
		expect(describedBy(error)).toContain('a PSBT may lack your signature');
		expect(received()).toEqual([`POST /api/contracts/${loan.id}/broadcast-claim-ark`]);
		expect(stored(loan.id).status).toBe('RepaymentConfirmed');
	});

	it('never sends a claim again after an answer that may have come after it was processed', async () => {
		sandbox.configure({
			faults: [
				{
					kind: '503',
					method: 'POST',
					path: `/api/contracts/${loan.id}/broadcast-claim-ark`,
					after: true,
				},
			],
		});
		const { error } = await broadcast(signed.ark_psbt, signed.checkpoint_psbts);
		expect(error?.message).toMatch(/HTTP 503/);
		expect(received()).toEqual([`POST /api/contracts/${loan.id}/broadcast-claim-ark`]);
		expect(stored(loan.id).status).toBe('ClosingByClaim'); // it went through; the node did not send it twice
	});
});

/** An on-chain claim PSBT of the sandbox, to show a finished transaction in the wrong place. */
function onchainPsbt(): string {
	const key = (n: number) => `02${String(n).repeat(64)}`;
	return buildPsbt({
		collateralTxid: TXID,
		collateralVout: 0,
		collateralSats: 1_000_000,
		publicKeys: [key(1), key(2), key(3)],
		hubPk: key(3),
		outputs: [{ script: Buffer.from(`0014${'11'.repeat(20)}`, 'hex'), sats: 990_000 }],
		label: 'arkade-test',
	}).psbt;
}

describe('Broadcast Ark Claim and Finish Ark Settlement are sent once', () => {
	/** Quick retries and a short attempt timeout, so that a "slow" answer is a timeout. */
	const OPTIONS = { initialDelay: 20, maxDelay: 100, attemptTimeout: 700 };
	const AMBIGUOUS = [
		['a 500', { kind: '500', after: true }],
		['a 502 from a proxy', { kind: '502-html', after: true }],
		['a 503', { kind: '503', after: true }],
		['a reset connection', { kind: 'reset', after: true }],
		['a timeout', { kind: 'slow', after: true, delayMs: 1500 }],
		['a 429, which was not processed', { kind: '429', retryAfter: '0' }],
	] as const;

	/** The operation's parameters and path for a fresh repaid Arkade loan, signed by the stand-in. */
	async function prepared(operation: 'broadcastArkClaim' | 'finishArkSettlement') {
		const loan = await repaidArkadeLoan();
		if (operation === 'broadcastArkClaim') {
			const signed = await signedClaim(loan.id);
			return {
				path: `/api/contracts/${loan.id}/broadcast-claim-ark`,
				parameters: {
					contractId: byId(loan.id),
					arkPsbt: signed.ark_psbt,
					checkpointPsbts: signed.checkpoint_psbts,
				},
			};
		}
		sandbox.admin.setArkVtxosRecoverable(loan.id);
		const { items } = await contract('getArkSettlement', { contractId: byId(loan.id) });
		const answer = items[0] as { intent_proof: string; forfeit_psbts: string[] };
		return {
			path: `/api/contracts/${loan.id}/finish-settle-ark`,
			parameters: {
				contractId: byId(loan.id),
				intentPsbt: standInSignArk(answer.intent_proof),
				forfeitPsbts: answer.forfeit_psbts.map(standInSignArk),
			},
		};
	}

	it.each(
		(['broadcastArkClaim', 'finishArkSettlement'] as const).flatMap((operation) =>
			AMBIGUOUS.map(([failure, rule]) => [operation, failure, rule] as const),
		),
	)('%s after %s', async (operation, _failure, rule) => {
		const { path, parameters } = await prepared(operation);
		sandbox.configure({ faults: [{ ...rule, method: 'POST', path }] });
		sandbox.requests.length = 0;
		const { error } = await contract(operation, { ...parameters, options: OPTIONS });
		const sent = received().filter((line) => line === `POST ${path}`).length;
		if (rule.kind === '429') {
			expect(error).toBeUndefined();
			expect(sent).toBe(2);
		} else {
			expect(error).toBeDefined();
			expect(sent).toBe(1);
		}
	});
});

describe('the state a claim needs', () => {
	it('explains that the collateral cannot be claimed before the lender confirmed the repayment', async () => {
		const loan = runningArkadeLoan();
		const { error } = await contract('getArkClaimPsbts', { contractId: byId(loan.id) });
		expect(error?.message).toBe(
			'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed (HTTP 400)',
		);
		expect(describedBy(error)).toContain(
			'Server said: "Cannot claim collateral until loan has been repaid"',
		);
	});

	it('explains that an on-chain contract has no Arkade collateral, and which operations to use', async () => {
		const { error } = await contract('getArkClaimPsbts', {
			contractId: byId(CONTRACTS.principalGiven),
		});
		expect(error?.message).toBe('This contract has no Arkade collateral (HTTP 400)');
		expect(describedBy(error)).toContain('use Get Claim PSBT and Broadcast Claim instead');
	});

	it('sends a borrower whose VTXOs became recoverable to Get Ark Settlement', async () => {
		const loan = await repaidArkadeLoan();
		sandbox.admin.setArkVtxosRecoverable(loan.id);
		const { error } = await contract('getArkClaimPsbts', { contractId: byId(loan.id) });
		expect(error?.message).toBe(
			'The collateral must be settled: use Get Ark Settlement instead (HTTP 400)',
		);
		expect(describedBy(error)).toContain('requires_ark_settlement is true');
	});

	it('says so by the code in the specification dialect too', async () => {
		const loan = runningArkadeLoan();
		sandbox.configure({ dialect: 'spec' });
		const { error } = await contract('getArkClaimPsbts', { contractId: byId(loan.id) });
		expect(error?.message).toBe(
			'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed (HTTP 400, NOT_REPAID)',
		);
	});

	it("names the contract when it is not this key's (the live backend's 500)", async () => {
		const { error } = await contract('getArkClaimPsbts', {
			contractId: byId(CONTRACTS.otherBorrowers),
		});
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.otherBorrowers} may not exist (HTTP 500)`,
		);
		expect(describedBy(error)).toContain('the collateral may already be claimed');
	});
});

describe('Contract → Get Ark Settlement and Finish Ark Settlement: recoverable VTXOs', () => {
	async function recoverableLoan(): Promise<Contract> {
		const loan = await repaidArkadeLoan();
		sandbox.admin.setArkVtxosRecoverable(loan.id);
		return stored(loan.id);
	}

	it('settles the collateral: base64 PSBTs out, signed base64 PSBTs back, the batch commitment as the answer', async () => {
		const loan = await recoverableLoan();
		expect(loan.requires_ark_settlement).toBe(true);
		const settlement = await contract('getArkSettlement', { contractId: byId(loan.id) });
		expect(settlement.error).toBeUndefined();
		expect(received()).toEqual([`GET /api/contracts/${loan.id}/settle-ark`]);
		expect(settlement.items).toEqual([
			{
				id: loan.id,
				intent_message: expect.stringContaining('"type":"register"'),
				intent_proof: expect.stringMatching(/^cHNidP8/),
				forfeit_psbts: [expect.stringMatching(/^cHNidP8/), expect.stringMatching(/^cHNidP8/)],
				delegate_cosigner_pk: expect.stringMatching(/^02[0-9a-f]{64}$/),
				user_pk: loan.borrower_pk,
				derivation_path: loan.borrower_derivation_path,
			},
		]);
		const answer = settlement.items[0] as { intent_proof: string; forfeit_psbts: string[] };
		// The signer gives hex back (as Lendasat's iframe wallet does): the node sends base64.
		const toHex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
		const intentHex = toHex(standInSignArk(answer.intent_proof));
		const forfeits = answer.forfeit_psbts.map(standInSignArk);

		sandbox.requests.length = 0;
		const finished = await contract('finishArkSettlement', {
			contractId: byId(loan.id),
			intentPsbt: intentHex,
			forfeitPsbts: JSON.stringify([toHex(forfeits[0]), forfeits[1]]),
		});
		expect(finished.error).toBeUndefined();
		expect(received()).toEqual([`POST /api/contracts/${loan.id}/finish-settle-ark`]);
		expect(sandbox.requests[0].body).toEqual({
			intent_psbt: Buffer.from(intentHex, 'hex').toString('base64'),
			forfeit_psbts: forfeits,
		});
		expect(finished.items).toEqual([
			{ id: loan.id, commitment_txid: expect.stringMatching(/^[0-9a-f]{64}$/), settled: true },
		]);
		expect(stored(loan.id)).toMatchObject({
			status: 'ClosingByClaim',
			requires_ark_settlement: false,
		});
	});

	it('says there is nothing to settle while the VTXOs can be spent off-chain', async () => {
		const loan = await repaidArkadeLoan();
		const { error } = await contract('getArkSettlement', { contractId: byId(loan.id) });
		expect(error?.message).toBe('Nothing to settle: use Get Ark Claim PSBTs instead (HTTP 400)');
	});

	it('explains a finish without a settlement waiting for it', async () => {
		const settled = await recoverableLoan();
		const { items } = await contract('getArkSettlement', { contractId: byId(settled.id) });
		const answer = items[0] as { intent_proof: string; forfeit_psbts: string[] };
		const other = await recoverableLoan(); // Get Ark Settlement never ran for it
		const { error } = await contract('finishArkSettlement', {
			contractId: byId(other.id),
			intentPsbt: standInSignArk(answer.intent_proof),
			forfeitPsbts: answer.forfeit_psbts.map(standInSignArk).join('\n'),
		});
		expect(error?.message).toBe('Lendasat has no settlement waiting for these PSBTs (HTTP 400)');
		expect(describedBy(error)).toContain('Run Get Ark Settlement again');
	});

	it.each([
		[
			'no intent PSBT',
			'={{ "" }}',
			'[]',
			'Invalid Signed Intent PSBT [item 0]',
			'Must not be empty.',
		],
		[
			'no forfeit PSBTs at all',
			'INTENT',
			'={{ "" }}',
			'Invalid Signed Forfeit PSBTs [item 0]',
			', or [] when there were none.',
		],
		[
			'a finished transaction',
			'RAW',
			'[]',
			'Invalid Signed Intent PSBT [item 0]',
			'this is a finished transaction, not a PSBT',
		],
		[
			'a forfeit that is not base64',
			'INTENT',
			'["cHNidP8*"]',
			'Invalid Signed Forfeit PSBTs [item 0]',
			'it is neither hex nor base64',
		],
	])('sends nothing for %s', async (_case, intent, forfeits, message, problem) => {
		const loan = await recoverableLoan();
		const { items } = await contract('getArkSettlement', { contractId: byId(loan.id) });
		const signedIntent = standInSignArk(String(items[0].intent_proof));
		sandbox.requests.length = 0;
		const { error } = await contract('finishArkSettlement', {
			contractId: byId(loan.id),
			intentPsbt:
				intent === 'INTENT' ? signedIntent : intent === 'RAW' ? standInSign(onchainPsbt()) : intent,
			forfeitPsbts: forfeits,
		});
		expect(error?.message).toBe(message);
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});

	it('sends an explicit empty forfeit list, which the route may need when no forfeit is due', async () => {
		const loan = await recoverableLoan();
		const { items } = await contract('getArkSettlement', { contractId: byId(loan.id) });
		sandbox.requests.length = 0;
		const { error } = await contract('finishArkSettlement', {
			contractId: byId(loan.id),
			intentPsbt: standInSignArk(String(items[0].intent_proof)),
			forfeitPsbts: '[]',
		});
		// The sandbox's settlement has two forfeits, so the batch refuses it; what matters is what was sent.
		expect(sandbox.requests[0].body).toMatchObject({ forfeit_psbts: [] });
		expect(error?.message).toBe('Lendasat could not finish the Ark settlement (HTTP 500)');
		expect(received()).toHaveLength(1);
	});
});

describe('a server that answers 200 with something of no use gets an error, never an item', () => {
	const CONTRACT = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
	let signed: Awaited<ReturnType<typeof signedClaim>>;
	beforeAll(async () => {
		signed = await signedClaim((await repaidArkadeLoan()).id);
	});

	async function againstAnswer(
		body: string,
		operation: string,
		parameters: Record<string, unknown>,
	) {
		const server = http.createServer((_request, response) => {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(body);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		try {
			const result = await runWorkflow(
				singleNodeWorkflow(
					{ resource: 'contract', operation, contractId: byId(CONTRACT), ...parameters },
					{ typeVersion: 1.1 },
				),
				{ credential: { ...borrower(), baseUrl: `http://127.0.0.1:${port}` } },
			);
			return { error: result.error, items: result.output(NODE).map((item) => item.json) };
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}

	const MESSAGE = '{"message":"Something went wrong"}';
	const claim = () => ({ arkPsbt: signed.ark_psbt, checkpointPsbts: signed.checkpoint_psbts });
	const settlement = () => ({ intentPsbt: signed.ark_psbt, forfeitPsbts: '[]' });

	it.each([
		['getArkClaimPsbts', () => ({}), MESSAGE, /error message, although the status says success/],
		[
			'getArkClaimPsbts',
			() => ({}),
			'{"ark_psbt":"70736274ff","checkpoint_psbts":[]}',
			/its ark_psbt "70736274ff" is not a PSBT/,
		],
		[
			'getArkClaimPsbts',
			() => ({}),
			JSON.stringify({ ark_psbt: onchainPsbt(), checkpoint_psbts: [] }),
			/its checkpoint_psbts is empty/,
		],
		['getArkSettlement', () => ({}), MESSAGE, /error message, although the status says success/],
		[
			'getArkSettlement',
			() => ({}),
			JSON.stringify({ intent_proof: 'cHNidP8=', forfeit_psbts: [] }),
			/its intent_proof "cHNidP8=" is not a PSBT/,
		],
		['broadcastArkClaim', claim, MESSAGE, /error message, although the status says success/],
		['broadcastArkClaim', claim, '{"txid":"<script>"}', /is not a transaction ID/],
		['finishArkSettlement', settlement, MESSAGE, /error message, although the status says success/],
		['finishArkSettlement', settlement, '{}', /it holds no commitment_txid/],
		[
			'finishArkSettlement',
			settlement,
			'{"commitment_txid":"abc"}',
			/its commitment_txid "abc" is not a transaction ID/,
		],
	])('%s answered %#', async (operation, parameters, body, problem) => {
		const { error, items } = await againstAnswer(body, operation, parameters());
		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(problem);
	});
});

describe('the Ark operations as AI Agent tools and in the editor', () => {
	it.each([
		['getArkClaimPsbts', /moves no money.*sign them outside n8n/],
		['getArkSettlement', /moves no money.*sign them outside n8n/],
		['broadcastArkClaim', /moves the Arkade collateral .*\(irreversible\); returns the txid/],
		[
			'finishArkSettlement',
			/moves the Arkade collateral .*\(irreversible\); returns the commitment txid/,
		],
	])('%s says what it does, whether it moves money and what comes back', (operation, expected) => {
		expect(whatTheModelReads({ resource: 'contract', operation })).toMatch(expected);
	});

	it('never asks for a private key, and gives the Ark routes the time the Ark server takes', () => {
		const { properties } = new LendasatBorrower().description;
		const operations = properties.find(
			(property) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes('contract'),
		);
		const options = (operations?.options ?? []) as Array<{
			value: string;
			description?: string;
			routing?: unknown;
		}>;
		for (const operation of [
			'getArkClaimPsbts',
			'broadcastArkClaim',
			'getArkSettlement',
			'finishArkSettlement',
		]) {
			const option = options.find((candidate) => candidate.value === operation);
			expect(option?.description).toMatch(/outside n8n/);
			expect(option?.description).toMatch(/never asks for a private key/);
			expect(operationMetaOf(option?.routing)?.attemptTimeoutMs).toBe(120_000);
		}
		expect(JSON.stringify(properties)).not.toMatch(/"name":"(privateKey|seed|mnemonic|xprv|nsec)/i);
	});
});
