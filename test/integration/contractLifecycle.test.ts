import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { SEED_IDS, startSandbox, type Contract, type Sandbox } from '../../dev/sandbox/server';
import { standInSign, unsignedTransactionOf } from '../../dev/sandbox/standInSigner';
import {
	pollTrigger,
	runWorkflow,
	singleNodeWorkflow,
	type TestCredential,
} from '../../dev/harness/n8n';
import { LendasatBorrower } from '../../nodes/LendasatBorrower/LendasatBorrower.node';
import { parseBitcoinTransactionHex } from '../../nodes/LendasatBorrower/validation/bitcoin';
import { whatTheModelReads } from '../helpers/aiTool';
import { everythingVisible } from '../helpers/secrets';
import { useFakeTime } from '../helpers/fakeTime';

/*
 * The end of a loan through n8n-core: repaying an installment in bitcoin, then getting the collateral
 * back (claim after repayment, recovery when the lender never paid out). Mostly against the sandbox's
 * live dialect (Lendasat's backend as its source reads), the specification dialect at least once.
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

const NODE = 'Lendasat Borrower';
const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TXID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const FIFTEEN_MINUTES = 15 * 60_000;
const PSBT_MESSAGE = 'this is a PSBT, not a signed transaction: finalize and extract it first';
/** The public key of private key 1 and BIP-173's test-network address: values the live backend parses. */
const PUBLIC_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const LIVE_FIELDS = {
	collateralAddress: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
	repaymentAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
	borrowerPublicKey: PUBLIC_KEY,
	derivationPath: "m/84'/1'/0'/0/0",
	loanType: 'StableCoin',
};

const borrower = (): TestCredential => ({
	environment: 'custom',
	baseUrl: sandbox.url,
	keyType: 'borrower',
	apiKey: sandbox.keys.borrower,
});

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });

/** Runs one contract operation (node version 1.1) and returns its items, error and the whole run. */
async function contract(
	operation: string,
	parameters: Record<string, unknown> = {},
	items?: Record<string, unknown>[],
) {
	const result = await runWorkflow(
		singleNodeWorkflow({ resource: 'contract', operation, ...parameters }, { typeVersion: 1.1 }),
		{
			credential: borrower(),
			items,
		},
	);
	const visible = everythingVisible(result.run, result.error);
	expect(visible).not.toContain(sandbox.keys.borrower);
	return { ...result, items: result.output(NODE).map((item) => item.json) };
}

function stored(id: string): Contract {
	const entry = sandbox.state.contracts.get(id);
	if (!entry) throw new Error(`no contract ${id} in the sandbox`);
	return JSON.parse(JSON.stringify(entry.contract)) as Contract;
}

const received = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);
const describedBy = (error: unknown) =>
	String((error as { description?: unknown } | undefined)?.description ?? '');

/** A running bullet loan of the main borrower (USDC on Polygon, lender with a BTC address): one installment. */
function runningLoan(overrides: Partial<Contract> = {}): Contract {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.usdcPolygon,
		loan_amount: 1000,
		duration_days: 30,
		status: 'PrincipalGiven',
		...overrides,
	});
}

/** Takes a running loan through a Bitcoin repayment and the lender's confirmation: RepaymentConfirmed. */
async function repaidLoan(): Promise<Contract> {
	const loan = runningLoan();
	const invoice = await contract('createBtcInvoice', { contractId: byId(loan.id) });
	await contract('reportBtcInvoicePaid', {
		contractId: byId(loan.id),
		invoiceId: invoice.items[0].id,
		txid: TXID,
	});
	sandbox.admin.confirmInstallments(loan.id);
	sandbox.requests.length = 0;
	return stored(loan.id);
}

async function claimPsbt(id: string, feeRate = 5): Promise<string> {
	const { items, error } = await contract('getClaimPsbt', { contractId: byId(id), feeRate });
	expect(error).toBeUndefined();
	return String(items[0].psbt);
}

function installmentAmount(installment: { principal: number; interest: number }): number {
	return Math.round((installment.principal + installment.interest) * 100) / 100;
}

describe('Contract → Create Bitcoin Repayment Invoice', () => {
	it("asks for the next installment's invoice without a body and returns what a payment needs", async () => {
		const before = stored(CONTRACTS.principalGiven);
		const next = before.installments
			.filter((item) => item.status === 'pending')
			.sort((a, b) => a.due_date.localeCompare(b.due_date))[0];
		const { items, error } = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven),
		});

		expect(error).toBeUndefined();
		expect(received()).toEqual([
			`POST /api/contracts/${CONTRACTS.principalGiven}/generate-btc-invoice`,
		]);
		const [request] = sandbox.requests;
		expect(request.rawBody).toBe('');
		expect(request.headers['content-type']).toBeUndefined();
		expect(request.query).toEqual({});

		const stored_ = [...sandbox.state.btcInvoices.values()][0].invoice;
		const sats = Math.round((installmentAmount(next) / 100_000) * 1e8);
		expect(items).toEqual([
			{
				id: stored_.id,
				contract_id: CONTRACTS.principalGiven,
				status: 'pending',
				address: before.btc_loan_repayment_address,
				amount_sats: sats,
				amount_usd: installmentAmount(next),
				payment_uri: `bitcoin:${before.btc_loan_repayment_address}?amount=${(sats / 1e8).toFixed(8).replace(/0+$/, '')}`,
				expires_at: stored_.expires_at,
				installment: {
					id: next.id,
					due_date: next.due_date,
					amount: installmentAmount(next),
					status: 'pending',
				},
			},
		]);
		expect(items[0].id).toMatch(UUID);
		expect(Date.parse(stored_.expires_at) - Date.parse(stored_.created_at)).toBe(FIFTEEN_MINUTES);
		expect(before.btc_loan_repayment_address).toMatch(/^tb1q[02-9ac-hj-np-z]{38}$/);
	});

	it('gives the invoice flattened with every field and the whole installment with Simplify off', async () => {
		const { items } = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven),
			simplify: false,
		});
		const { invoice } = [...sandbox.state.btcInvoices.values()][0];
		const installment = stored(CONTRACTS.principalGiven).installments.find(
			(item) => item.id === invoice.installment_id,
		);
		expect(items).toEqual([{ ...invoice, contract_id: CONTRACTS.principalGiven, installment }]);
		expect(Object.keys(items[0]).slice(0, 2)).toEqual(['id', 'contract_id']);
		expect(items[0]).toMatchObject({ txid: null, status: 'pending' });
	});

	it('returns the same invoice while it is unexpired, and a new one after 15 minutes', async () => {
		const first = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven),
		});
		sandbox.admin.advanceClock(FIFTEEN_MINUTES - 10_000);
		const again = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven),
		});
		expect(again.items[0]).toEqual(first.items[0]);
		sandbox.admin.advanceClock(10_000);
		const renewed = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven),
		});
		expect(renewed.items[0].id).not.toBe(first.items[0].id);
		expect(renewed.items[0].installment).toEqual(first.items[0].installment);
		expect(sandbox.state.btcInvoices.size).toBe(2);
	});

	it('explains that a euro loan cannot be repaid in bitcoin', async () => {
		const eur = runningLoan({
			loan_id: OFFERS.eurBankKyc,
			loan_amount: 1000,
			duration_days: 90,
		} as Partial<Contract>);
		const { error } = await contract('createBtcInvoice', { contractId: byId(eur.id) });
		expect(error?.message).toBe(
			'Lendasat takes no Bitcoin repayment for a loan in this currency (HTTP 400)',
		);
		expect(describedBy(error)).toContain('every loan asset in US dollars but Eur');
		expect(describedBy(error)).toContain('a loan in euros cannot be repaid in bitcoin');
		expect(describedBy(error)).toContain(
			'Server said: "Bitcoin repayment is not supported for Eur loans. Only USD-based loans are supported"',
		);
	});

	it('explains the same in the specification dialect, by its code', async () => {
		sandbox.configure({ dialect: 'spec' });
		const eur = runningLoan({
			loan_id: OFFERS.eurBankKyc,
			loan_amount: 1000,
			duration_days: 90,
		} as Partial<Contract>);
		const { error } = await contract('createBtcInvoice', { contractId: byId(eur.id) });
		expect(error?.message).toBe(
			'Lendasat takes no Bitcoin repayment for a loan in this currency (HTTP 400, UNSUPPORTED_CURRENCY)',
		);
	});

	// Lendasat's error says "Only USD-based loans are supported", but it refuses only Eur: its
	// LoanAsset::to_currency counts Chf and Mxn as Usd (hub 49781f87 model.rs:516-532). The node adds
	// no check of its own, so these loans get their invoice.
	it.each(['Chf', 'Mxn', 'Usd'])(
		'makes the invoice of a loan in %s: only euros are refused',
		async (asset) => {
			const loan = runningLoan({ loan_asset: asset } as Partial<Contract>);
			expect(loan.btc_loan_repayment_address).toBeTruthy();
			const { items, error } = await contract('createBtcInvoice', { contractId: byId(loan.id) });
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(items[0]).toMatchObject({ contract_id: loan.id, status: 'pending' });
			expect(items[0].amount_sats).toBeGreaterThan(0);
		},
	);

	it('explains a lender that takes no bitcoin (no btc_loan_repayment_address)', async () => {
		expect(stored(CONTRACTS.marginCall).btc_loan_repayment_address).toBeNull();
		const { error } = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.marginCall),
		});
		expect(error?.message).toBe(
			"This contract's lender does not take Bitcoin repayments (HTTP 400)",
		);
		expect(describedBy(error)).toContain('Contract → Report Repayment');
		expect(describedBy(error)).toContain('The lender must provide a Bitcoin repayment address');
	});

	it('explains a contract with nothing left to pay', async () => {
		const loan = await repaidLoan();
		const { error } = await contract('createBtcInvoice', { contractId: byId(loan.id) });
		expect(error?.message).toBe('This contract has no installment to pay (HTTP 400)');
		expect(describedBy(error)).toContain('No pending installments found for this contract');
	});

	it("explains the live 500 for a contract that is not this key's", async () => {
		const { error } = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.otherBorrowers),
		});
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.otherBorrowers} may not exist (HTTP 500)`,
		);
		expect(describedBy(error)).toContain('belongs to another account');
		expect(sandbox.state.btcInvoices.size).toBe(0);
		expect(received()).toHaveLength(1);
	});
});

describe('Contract → Report Bitcoin Invoice Paid', () => {
	async function invoiceOf(id: string): Promise<string> {
		const { items } = await contract('createBtcInvoice', { contractId: byId(id) });
		sandbox.requests.length = 0;
		return String(items[0].id);
	}

	it('reports the txid; the installment is paid and, being the last, the contract RepaymentProvided', async () => {
		const loan = runningLoan();
		const invoiceId = await invoiceOf(loan.id);
		const { items, error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(loan.id),
			invoiceId: ` ${invoiceId.toUpperCase()} `,
			txid: TXID.toUpperCase(),
		});

		expect(error).toBeUndefined();
		expect(items).toEqual([{ id: loan.id, invoice_id: invoiceId, txid: TXID, reported: true }]);
		expect(received()).toEqual([`PUT /api/contracts/${loan.id}/btc-invoice-paid`]);
		expect(sandbox.requests[0].body).toEqual({ txid: TXID, invoice_id: invoiceId });

		const after = stored(loan.id);
		expect(after.installments[0]).toMatchObject({
			status: 'paid',
			payment_id: TXID,
			paid_date: expect.any(String),
		});
		expect(after.status).toBe('RepaymentProvided');
		expect(sandbox.state.btcInvoices.get(invoiceId)?.invoice).toMatchObject({
			status: 'paid',
			txid: TXID,
		});
	});

	it('leaves a contract with more installments running', async () => {
		const invoiceId = await invoiceOf(CONTRACTS.principalGiven);
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId,
			txid: TXID,
		});
		expect(error).toBeUndefined();
		expect(stored(CONTRACTS.principalGiven).status).toBe('PrincipalGiven');
	});

	it('explains an invoice that does not exist', async () => {
		const missing = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId: missing,
			txid: TXID,
		});
		expect(error?.message).toBe('No such Bitcoin repayment invoice (HTTP 404)');
		expect(describedBy(error)).toContain('Server said: "Bitcoin repayment invoice not found"');
	});

	it('explains an invoice that expired (after 15 minutes)', async () => {
		const invoiceId = await invoiceOf(CONTRACTS.principalGiven);
		sandbox.admin.advanceClock(FIFTEEN_MINUTES);
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId,
			txid: TXID,
		});
		expect(error?.message).toBe('The Bitcoin repayment invoice has expired (HTTP 400)');
		expect(describedBy(error)).toContain(
			'Create a new one with Contract → Create Bitcoin Repayment Invoice',
		);
		expect(
			stored(CONTRACTS.principalGiven).installments.filter((item) => item.status === 'paid'),
		).toEqual([]);
	});

	it('explains an invoice that was already reported', async () => {
		const invoiceId = await invoiceOf(CONTRACTS.principalGiven);
		await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId,
			txid: TXID,
		});
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId,
			txid: TXID,
		});
		expect(error?.message).toBe('The invoice was already reported as paid (HTTP 400)');
		expect(describedBy(error)).toContain('cannot accept payment in its current state');
	});

	it('explains a contract that is no longer PrincipalGiven', async () => {
		const invoiceId = await invoiceOf(CONTRACTS.principalGiven);
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'Defaulted');
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId,
			txid: TXID,
		});
		expect(error?.message).toBe('Repayments can only be reported for a running loan (HTTP 400)');
		expect(describedBy(error)).toContain(
			'Cannot mark an installment as paid for a contract with status Defaulted',
		);
	});

	it("explains an invoice of another of the borrower's contracts", async () => {
		const invoiceId = await invoiceOf(CONTRACTS.principalGiven);
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.marginCall),
			invoiceId,
			txid: TXID,
		});
		expect(error?.message).toBe('The invoice belongs to another contract (HTTP 400)');
		expect(describedBy(error)).toContain("Invoice doesn't match contract ID");
	});

	it.each([
		[
			'a txid of 63 characters',
			{ txid: TXID.slice(1) },
			'Invalid Transaction ID [item 0]',
			'has 63 characters instead of 64',
		],
		['a txid with 0x', { txid: `0x${TXID}` }, 'Invalid Transaction ID [item 0]', 'starts with 0x'],
		[
			'a txid that is not hex',
			{ txid: `${TXID.slice(1)}z` },
			'Invalid Transaction ID [item 0]',
			'is not hexadecimal',
		],
		[
			'an empty txid from an expression',
			{ txid: '={{ " " }}' },
			'Invalid Transaction ID [item 0]',
			'Must not be empty',
		],
		[
			'an invoice ID that is not a UUID',
			{ invoiceId: 'invoice-1' },
			'Invalid Invoice ID [item 0]',
			'is not an ID of the form 8-4-4-4-12',
		],
	])('sends nothing for %s', async (_case, override, message, problem) => {
		const { error } = await contract('reportBtcInvoicePaid', {
			contractId: byId(CONTRACTS.principalGiven),
			invoiceId: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
			txid: TXID,
			...override,
		});
		expect(error?.message).toBe(message);
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Get Claim PSBT', () => {
	it('asks with the fee rate and returns the hub-signed PSBT, its descriptor and the borrower key', async () => {
		const loan = await repaidLoan();
		expect(loan.status).toBe('RepaymentConfirmed');
		const { items, error } = await contract('getClaimPsbt', {
			contractId: byId(loan.id),
			feeRate: 7,
		});

		expect(error).toBeUndefined();
		expect(received()).toEqual([`GET /api/contracts/${loan.id}/claim`]);
		expect(sandbox.requests[0].query).toEqual({ fee_rate: '7' });
		const [item] = items;
		expect(Object.keys(item)).toEqual([
			'id',
			'psbt',
			'psbt_base64',
			'collateral_descriptor',
			'borrower_pk',
			'fee_rate',
		]);
		expect(item).toMatchObject({ id: loan.id, borrower_pk: loan.borrower_pk, fee_rate: 7 });
		expect(item.psbt).toMatch(/^70736274ff[0-9a-f]+$/);
		expect(item.psbt_base64).toBe(Buffer.from(String(item.psbt), 'hex').toString('base64'));
		expect(item.collateral_descriptor).toMatch(
			new RegExp(
				`^wsh\\(multi\\(2,${loan.borrower_pk},${loan.lender_pk},0[23][0-9a-f]{64}\\)\\)#[a-z0-9]{8}$`,
			),
		);
		// The collateral goes to the borrower, the origination fee to Lendasat.
		const unsigned = parseBitcoinTransactionHex(unsignedTransactionOf(String(item.psbt)));
		expect('outputs' in unsigned && unsigned.outputs.length).toBe(2);
	});

	it('converts a fee rate that arrives as text from an expression', async () => {
		const loan = await repaidLoan();
		await contract('getClaimPsbt', { contractId: byId(loan.id), feeRate: '={{ "12" }}' });
		expect(sandbox.requests[0].query).toEqual({ fee_rate: '12' });
	});

	it.each([
		['a reported but unconfirmed repayment (RepaymentProvided)', 'RepaymentProvided'],
		['a running loan (PrincipalGiven)', 'PrincipalGiven'],
	])(
		'explains that %s cannot be claimed: the contract must be RepaymentConfirmed',
		async (_case, status) => {
			const loan = runningLoan();
			if (status === 'RepaymentProvided') {
				const invoice = await contract('createBtcInvoice', { contractId: byId(loan.id) });
				await contract('reportBtcInvoicePaid', {
					contractId: byId(loan.id),
					invoiceId: invoice.items[0].id,
					txid: TXID,
				});
			}
			expect(stored(loan.id).status).toBe(status);
			const { error } = await contract('getClaimPsbt', { contractId: byId(loan.id), feeRate: 5 });
			expect(error?.message).toBe(
				'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed (HTTP 400)',
			);
			expect(describedBy(error)).toContain('every installment paid and confirmed by the lender');
			expect(describedBy(error)).toContain(
				'Server said: "Cannot claim collateral until loan has been repaid"',
			);
		},
	);

	it('explains the same in the specification dialect, by its code', async () => {
		sandbox.configure({ dialect: 'spec' });
		const { error } = await contract('getClaimPsbt', {
			contractId: byId(CONTRACTS.principalGiven),
			feeRate: 5,
		});
		expect(error?.message).toBe(
			'The collateral cannot be claimed yet: the contract must be RepaymentConfirmed (HTTP 400, NOT_REPAID)',
		);
	});

	it('adds what else a 500 means here: the collateral may already be claimed', async () => {
		const { error } = await contract('getClaimPsbt', {
			contractId: byId(CONTRACTS.closed),
			feeRate: 5,
		});
		expect(error?.message).toBe(
			`Lendasat had an internal error — contract ${CONTRACTS.closed} may not exist (HTTP 500)`,
		);
		expect(describedBy(error)).toContain('already claimed: status ClosingByClaim or Closed');
	});

	it.each([
		['zero', 0, 'Must be at least 1 sat/vB'],
		['a fraction', '={{ 1.5 }}', 'Must be a whole number of sat/vB'],
		['text', '={{ "fast" }}', 'Expected a whole number of sat/vB'],
		['a total fee instead of a rate', 25000, 'not the total fee'],
	])('sends nothing for a fee rate that is %s', async (_case, feeRate, problem) => {
		const { error } = await contract('getClaimPsbt', {
			contractId: byId(CONTRACTS.closed),
			feeRate,
		});
		expect(error?.message).toBe('Invalid Fee Rate (Sat/vB) [item 0]');
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('Contract → Broadcast Claim', () => {
	it('sends the signed transaction and returns its txid; the contract becomes ClosingByClaim', async () => {
		const loan = await repaidLoan();
		const signed = standInSign(await claimPsbt(loan.id));
		sandbox.requests.length = 0;
		const { items, error } = await contract('broadcastClaim', {
			contractId: byId(loan.id),
			signedTx: `${signed.toUpperCase()}\n`,
		});

		expect(error).toBeUndefined();
		expect(received()).toEqual([`POST /api/contracts/${loan.id}/broadcast-claim`]);
		expect(sandbox.requests[0].body).toEqual({ tx: signed });
		const parsed = parseBitcoinTransactionHex(signed);
		const txid = 'txid' in parsed ? parsed.txid : '';
		expect(items).toEqual([{ id: loan.id, txid, status: 'ClosingByClaim', broadcast: true }]);
		expect(stored(loan.id).status).toBe('ClosingByClaim');
		expect(stored(loan.id).transactions.at(-1)).toMatchObject({
			txid,
			transaction_type: 'ClaimCollateral',
		});
	});

	it.each([
		['the PSBT instead of the transaction', (psbt: string) => psbt, PSBT_MESSAGE],
		[
			'a truncated transaction',
			(psbt: string) => standInSign(psbt).slice(0, -6),
			'is not a Bitcoin transaction (ends too early',
		],
		['the unsigned transaction', (psbt: string) => unsignedTransactionOf(psbt), 'not a signed one'],
		[
			'a transaction with data after it',
			(psbt: string) => `${standInSign(psbt)}00`,
			'left after the lock time',
		],
		['an expression giving nothing', () => '={{ "" }}', 'Must not be empty'],
	])('sends nothing for %s', async (_case, make, problem) => {
		const loan = await repaidLoan();
		const psbt = await claimPsbt(loan.id);
		sandbox.requests.length = 0;
		const { error } = await contract('broadcastClaim', {
			contractId: byId(loan.id),
			signedTx: make(psbt),
		});
		expect(error?.message).toBe('Invalid Signed Transaction (Hex) [item 0]');
		expect(describedBy(error)).toContain(problem);
		expect(sandbox.requests).toHaveLength(0);
		expect(stored(loan.id).status).toBe('RepaymentConfirmed');
	});

	it('explains a transaction the network refuses (not the PSBT Lendasat signed)', async () => {
		const loan = await repaidLoan();
		const other = await repaidLoan();
		const signedForOther = standInSign(await claimPsbt(other.id));
		const { error } = await contract('broadcastClaim', {
			contractId: byId(loan.id),
			signedTx: signedForOther,
		});
		expect(error?.message).toBe('Lendasat could not broadcast the claim transaction (HTTP 500)');
		expect(describedBy(error)).toContain("may not spend this contract's collateral");
		expect(received().filter((line) => line.endsWith('/broadcast-claim'))).toHaveLength(1);
		expect(stored(loan.id).status).toBe('RepaymentConfirmed');
	});

	it('explains the same in the specification dialect, by its code', async () => {
		const loan = await repaidLoan();
		const other = await repaidLoan();
		const signedForOther = standInSign(await claimPsbt(other.id));
		sandbox.configure({ dialect: 'spec' });
		const { error } = await contract('broadcastClaim', {
			contractId: byId(loan.id),
			signedTx: signedForOther,
		});
		expect(error?.message).toBe(
			'Lendasat could not broadcast the claim transaction (HTTP 500, BROADCAST_FAILED)',
		);
	});

	it("names the contract when it is not this key's (the route's clean 404)", async () => {
		const loan = await repaidLoan();
		const signed = standInSign(await claimPsbt(loan.id));
		const { error } = await contract('broadcastClaim', {
			contractId: byId(CONTRACTS.otherBorrowers),
			signedTx: signed,
		});
		expect(error?.message).toBe(`Not found: contract ${CONTRACTS.otherBorrowers} (HTTP 404)`);
		expect(describedBy(error)).toContain('Server said: "Contract not found"');
	});
});

describe('Contract → Get Recovery PSBT and Broadcast Recovery: the lender never paid out', () => {
	function recoverable(): Contract {
		const loan = sandbox.admin.createContract(sandbox.keys.borrower, {
			loan_id: OFFERS.usdcPolygon,
			status: 'CollateralConfirmed',
		});
		sandbox.admin.setContractStatus(loan.id, 'CollateralRecoverable');
		sandbox.requests.length = 0;
		return stored(loan.id);
	}

	it('returns a PSBT that gives back the whole collateral; its broadcast closes the contract', async () => {
		const loan = recoverable();
		const { items, error } = await contract('getRecoveryPsbt', {
			contractId: byId(loan.id),
			feeRate: 3,
		});
		expect(error).toBeUndefined();
		expect(received()).toEqual([`GET /api/contracts/${loan.id}/recover`]);
		expect(sandbox.requests[0].query).toEqual({ fee_rate: '3' });
		expect(items[0]).toMatchObject({
			id: loan.id,
			borrower_pk: loan.borrower_pk,
			fee_rate: 3,
			psbt: expect.stringMatching(/^70736274ff/),
		});
		// No origination fee output: one output, to the borrower.
		const unsigned = parseBitcoinTransactionHex(unsignedTransactionOf(String(items[0].psbt)));
		expect('outputs' in unsigned && unsigned.outputs.length).toBe(1);

		const signed = standInSign(String(items[0].psbt));
		sandbox.requests.length = 0;
		const broadcast = await contract('broadcastRecovery', {
			contractId: byId(loan.id),
			signedTx: signed,
		});
		expect(broadcast.error).toBeUndefined();
		expect(received()).toEqual([`POST /api/contracts/${loan.id}/broadcast-recover`]);
		expect(sandbox.requests[0].body).toEqual({ tx: signed });
		expect(broadcast.items).toEqual([
			{
				id: loan.id,
				txid: expect.stringMatching(/^[0-9a-f]{64}$/),
				status: 'ClosedByRecovery',
				broadcast: true,
			},
		]);
		expect(stored(loan.id).status).toBe('ClosedByRecovery');
	});

	it.each(['getRecoveryPsbt', 'broadcastRecovery'])(
		'%s explains that only a CollateralRecoverable contract can be recovered',
		async (operation) => {
			const loan = await repaidLoan();
			const signed = standInSign(await claimPsbt(loan.id));
			const { error } = await contract(operation, {
				contractId: byId(CONTRACTS.principalGiven),
				feeRate: 5,
				signedTx: signed,
			});
			expect(error?.message).toBe(
				'Collateral can only be recovered from a contract in status CollateralRecoverable (HTTP 400)',
			);
			expect(describedBy(error)).toContain('use Get Claim PSBT and Broadcast Claim instead');
			expect(describedBy(error)).toContain(
				'Server said: "Cannot recover collateral from a contract with status PrincipalGiven"',
			);
		},
	);

	it('sends nothing when the recovery transaction is a PSBT', async () => {
		const loan = recoverable();
		const { items } = await contract('getRecoveryPsbt', { contractId: byId(loan.id), feeRate: 3 });
		sandbox.requests.length = 0;
		const { error } = await contract('broadcastRecovery', {
			contractId: byId(loan.id),
			signedTx: items[0].psbt,
		});
		expect(describedBy(error)).toContain(PSBT_MESSAGE);
		expect(sandbox.requests).toHaveLength(0);
	});
});

describe('the whole story: take a loan, be reminded, repay it in bitcoin, claim the collateral, see the contract closed', () => {
	it.each(['live', 'spec'] as const)('against the %s dialect', async (dialect) => {
		sandbox.configure({ dialect });
		const created = await contract('create', {
			loanId: byId(OFFERS.autoAccept),
			loanAmount: 1000,
			durationDays: 30,
			additionalFields: LIVE_FIELDS,
		});
		expect(created.error).toBeUndefined();
		const id = String(created.items[0].id);
		// The borrower funds the escrow and the lender pays out (outside the API).
		sandbox.admin.setContractStatus(id, 'PrincipalGiven');

		const seen = await contract('get', { contractId: byId(id), simplify: false });
		expect(seen.items[0]).toMatchObject({
			status: 'PrincipalGiven',
			btc_loan_repayment_address: expect.stringMatching(/^tb1q/),
		});

		// The trigger's Installment Due event reminds the borrower; its item drives the repayment.
		const staticData = {};
		const remind = () =>
			pollTrigger(
				{ event: 'installmentDue', daysAhead: 31 },
				{ credential: borrower(), staticData },
			);
		const reminders = ((await remind()).items ?? [])
			.map((item) => item.json)
			.filter((item) => item.contract_id === id);
		const [installment] = stored(id).installments;
		expect(reminders).toEqual([
			expect.objectContaining({
				event: 'installmentDue',
				installment_id: installment.id,
				amount: installment.principal + installment.interest,
				btc_invoice_possible: true,
				btc_loan_repayment_address: stored(id).btc_loan_repayment_address,
			}),
		]);
		expect(((await remind()).items ?? []).filter((item) => item.json.contract_id === id)).toEqual(
			[],
		); // once only

		const invoice = await contract(
			'createBtcInvoice',
			{ contractId: byId('={{ $json.contract_id }}') },
			[reminders[0]],
		);
		expect(invoice.items[0]).toMatchObject({
			contract_id: id,
			status: 'pending',
			amount_sats: expect.any(Number),
			installment: { id: installment.id },
		});

		// The borrower pays amount_sats to the address from a wallet, then reports it; the expressions
		// take the IDs from the invoice item, as a workflow would.
		const reported = await contract(
			'reportBtcInvoicePaid',
			{ contractId: byId('={{ $json.contract_id }}'), invoiceId: '={{ $json.id }}', txid: TXID },
			[invoice.items[0]],
		);
		expect(reported.items).toEqual([
			{ id, invoice_id: invoice.items[0].id, txid: TXID, reported: true },
		]);
		expect(stored(id).status).toBe('RepaymentProvided');

		sandbox.admin.confirmInstallments(id); // the lender confirms
		expect(stored(id).status).toBe('RepaymentConfirmed');

		const psbt = await contract('getClaimPsbt', { contractId: byId(id), feeRate: 4 });
		expect(psbt.items[0]).toMatchObject({ borrower_pk: PUBLIC_KEY });
		const signed = standInSign(String(psbt.items[0].psbt)); // the external signer

		const broadcast = await contract(
			'broadcastClaim',
			{ contractId: byId('={{ $json.id }}'), signedTx: '={{ $json.signed }}' },
			[{ id, signed }],
		);
		expect(broadcast.items[0]).toMatchObject({
			id,
			status: 'ClosingByClaim',
			txid: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
		expect((await contract('get', { contractId: byId(id) })).items[0]).toMatchObject({
			status: 'ClosingByClaim',
		});

		sandbox.admin.confirmClaim(id); // the chain watcher sees the claim confirmed
		expect((await contract('get', { contractId: byId(id) })).items[0]).toMatchObject({
			status: 'Closed',
		});

		expect(received().filter((request) => request !== 'GET /api/contracts')).toEqual([
			`GET /api/offers/${OFFERS.autoAccept}`, // which kind of Collateral Address it takes
			'POST /api/contracts',
			`GET /api/contracts/${id}`,
			`POST /api/contracts/${id}/generate-btc-invoice`,
			`PUT /api/contracts/${id}/btc-invoice-paid`,
			`GET /api/contracts/${id}/claim`,
			`POST /api/contracts/${id}/broadcast-claim`,
			`GET /api/contracts/${id}`,
			`GET /api/contracts/${id}`,
		]);
	});
});

describe('the operations as AI Agent tools', () => {
	const toolDescription = (operation: string) =>
		whatTheModelReads({ resource: 'contract', operation });

	it.each([
		[
			'createBtcInvoice',
			/not in euros: Lendasat records it.*address, the amount in sats and USD and when it expires.*sends no money/,
		],
		['reportBtcInvoicePaid', /txid of the payment you sent.*marks the installment paid/],
		['getClaimPsbt', /moves no money.*sign it outside n8n/],
		['getRecoveryPsbt', /lender never paid out; moves no money/],
		['broadcastClaim', /moves the collateral .*\(irreversible\); returns the txid/],
		['broadcastRecovery', /moves the collateral .*\(irreversible\); returns the txid/],
	])('%s says what it does, whether it moves money and what comes back', (operation, expected) => {
		expect(toolDescription(operation)).toMatch(expected);
	});

	it('describes signing as happening outside n8n, with the key behind borrower_pk, never asking for a private key', () => {
		const { properties } = new LendasatBorrower().description;
		const operations = properties.find(
			(property) =>
				property.name === 'operation' &&
				property.displayOptions?.show?.resource?.includes('contract'),
		);
		const options = (operations?.options ?? []) as Array<{ value: string; description?: string }>;
		for (const operation of [
			'getClaimPsbt',
			'getRecoveryPsbt',
			'broadcastClaim',
			'broadcastRecovery',
		]) {
			const description = options.find((option) => option.value === operation)?.description ?? '';
			expect(description).toMatch(/outside n8n/);
			expect(description).toContain('borrower_pk');
			expect(description).toMatch(/never asks for a private key/);
		}
		expect(JSON.stringify(properties)).not.toMatch(/"name":"(privateKey|seed|mnemonic|xprv)/i);
	});
});

describe('a server that answers 200 with something of no use gets an error, never an item', () => {
	const CONTRACT = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
	/** A signed transaction, made from a PSBT of the sandbox before the hostile server takes over. */
	let signed = '';
	beforeAll(async () => {
		const loan = await repaidLoan();
		signed = standInSign(
			String(
				(await contract('getClaimPsbt', { contractId: byId(loan.id), feeRate: 2 })).items[0].psbt,
			),
		);
	});

	/** A server on 127.0.0.1 answering every request 200 with `body`; returns the items or error of one operation. */
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
			const withTx =
				parameters.signedTx === 'SIGNED' ? { ...parameters, signedTx: signed } : parameters;
			const result = await runWorkflow(
				singleNodeWorkflow({ resource: 'contract', operation, ...withTx }, { typeVersion: 1.1 }),
				{
					credential: { ...borrower(), baseUrl: `http://127.0.0.1:${port}` },
				},
			);
			return { error: result.error, items: result.output(NODE).map((item) => item.json) };
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}

	it.each([
		['createBtcInvoice', {}, '{}', /holds no invoice/],
		[
			'createBtcInvoice',
			{},
			'{"message":"Something went wrong"}',
			/error message, although the status says success/,
		],
		[
			'createBtcInvoice',
			{},
			JSON.stringify({ invoice: { id: 'x', address: 'tb1q', amount_sats: 5 } }),
			/invoice ID "x" is not a UUID/,
		],
		[
			'createBtcInvoice',
			{},
			JSON.stringify({
				invoice: {
					id: CONTRACT,
					address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=9',
					amount_sats: 5,
				},
			}),
			/is not a Bitcoin address/,
		],
		[
			'createBtcInvoice',
			{},
			JSON.stringify({
				invoice: {
					id: CONTRACT,
					address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
					amount_sats: 0.5,
				},
			}),
			/amount_sats 0.5/,
		],
		['getClaimPsbt', { feeRate: 3 }, '{}', /holds no psbt/],
		[
			'getRecoveryPsbt',
			{ feeRate: 3 },
			'{"psbt":"70736274ffzz"}',
			/is not a PSBT in hex or base64/,
		],
		[
			'broadcastClaim',
			{ signedTx: 'SIGNED' },
			'{"message":"Something went wrong"}',
			/error message, although the status says success/,
		],
		[
			'broadcastRecovery',
			{ signedTx: 'SIGNED' },
			'{"txid":"<script>alert(1)</script>"}',
			/is not a transaction ID/,
		],
		[
			'reportBtcInvoicePaid',
			{ invoiceId: CONTRACT, txid: TXID },
			'{"message":"Something went wrong"}',
			/error message, although the status says success/,
		],
	])('%s answered %#', async (operation, parameters, body, problem) => {
		const { error, items } = await againstAnswer(body, operation, {
			contractId: byId(CONTRACT),
			...parameters,
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe('Lendasat sent an answer the node cannot use (HTTP 200)');
		expect(describedBy(error)).toMatch(problem);
	});
});

describe('input as people paste it', () => {
	it('a contract ID in upper case is sent in lower case, as Lendasat stores it', async () => {
		const { items, error } = await contract('createBtcInvoice', {
			contractId: byId(CONTRACTS.principalGiven.toUpperCase()),
		});
		expect(error).toBeUndefined();
		expect(items[0].contract_id).toBe(CONTRACTS.principalGiven);
		expect(received()).toEqual([
			`POST /api/contracts/${CONTRACTS.principalGiven}/generate-btc-invoice`,
		]);
	});

	it('a signed transaction wrapped over several lines is sent as one hex string', async () => {
		const loan = await repaidLoan();
		const psbt = await contract('getClaimPsbt', { contractId: byId(loan.id), feeRate: 2 });
		const signed = standInSign(String(psbt.items[0].psbt));
		const wrapped = `  ${signed.match(/.{1,64}/g)!.join('\n')}\n`;
		sandbox.requests.length = 0;
		const { items, error } = await contract('broadcastClaim', {
			contractId: byId(loan.id),
			signedTx: wrapped,
		});
		expect(error).toBeUndefined();
		expect(items[0]).toMatchObject({ status: 'ClosingByClaim' });
		expect(sandbox.requests[0].body).toEqual({ tx: signed });
	});

	it('an API key pasted into a field is not repeated in the error', async () => {
		// The workflow's own parameters hold what was pasted; the error must not repeat it.
		const { error } = await runWorkflow(
			singleNodeWorkflow(
				{
					resource: 'contract',
					operation: 'reportBtcInvoicePaid',
					contractId: byId(CONTRACTS.principalGiven),
					invoiceId: sandbox.keys.borrower,
					txid: TXID,
				},
				{ typeVersion: 1.1 },
			),
			{ credential: borrower() },
		);
		expect(error?.message).toMatch(/^Invalid Invoice ID/);
		expect(describedBy(error)).toContain('a text holding a Lendasat API key (not shown)');
		expect(`${error?.message} ${describedBy(error)}`).not.toContain(
			sandbox.keys.borrower.slice(0, 20),
		);
		expect(sandbox.requests).toHaveLength(0);
	});
});
