import { SEED_IDS, startSandbox, type Contract, type Sandbox } from '../dev/sandbox/server';
import { parseTransactionHex, txidOf, withDescriptorChecksum } from '../dev/sandbox/bitcoin';
import { standInSign } from '../dev/sandbox/standInSigner';
import { parseBitcoinAddress } from '../nodes/LendasatBorrower/validation/bitcoin';
import { useFakeTime } from './helpers/fakeTime';

/*
 * The sandbox's end-of-loan routes over HTTP, in both dialects: Bitcoin repayment invoices, the claim
 * and recovery PSBTs and their broadcasts, and the admin helpers that play the lender, chain and clock.
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

const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;
const TXID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Answer {
	status: number;
	type: string;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(
	method: string,
	path: string,
	body?: unknown,
	key: string | null = sandbox.keys.borrower,
): Promise<Answer> {
	const headers: Record<string, string> = {};
	if (key) headers['x-api-key'] = key;
	if (body !== undefined) headers['content-type'] = 'application/json';
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers,
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	let json: unknown;
	try {
		json = text === '' ? undefined : JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, type: response.headers.get('content-type') ?? '', text, json };
}

const invoice = (id: string) => call('POST', `/api/contracts/${id}/generate-btc-invoice`);
const reportPaid = (id: string, body: unknown) =>
	call('PUT', `/api/contracts/${id}/btc-invoice-paid`, body);
const claim = (id: string, query = '?fee_rate=5') =>
	call('GET', `/api/contracts/${id}/claim${query}`);
const recover = (id: string, query = '?fee_rate=5') =>
	call('GET', `/api/contracts/${id}/recover${query}`);

function stored(id: string): Contract {
	const entry = sandbox.state.contracts.get(id);
	if (!entry) throw new Error(`no contract ${id}`);
	return entry.contract;
}

function runningLoan(overrides: Partial<Contract> = {}): Contract {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.usdcPolygon,
		status: 'PrincipalGiven',
		...overrides,
	});
}

async function confirmedLoan(): Promise<Contract> {
	const loan = runningLoan();
	const { json } = await invoice(loan.id);
	await reportPaid(loan.id, { txid: TXID, invoice_id: json.invoice.id });
	sandbox.admin.confirmInstallments(loan.id);
	return stored(loan.id);
}

describe("seeded and created contracts carry the lender's Bitcoin repayment address where the lender gave one", () => {
	it('is a valid test-network address, copied from the offer, or null', () => {
		const address = stored(CONTRACTS.principalGiven).btc_loan_repayment_address;
		expect(parseBitcoinAddress(String(address))).toEqual({ network: 'testnet', type: 'p2wpkh' });
		expect(stored(CONTRACTS.marginCall).btc_loan_repayment_address).toBeNull();
		expect(runningLoan().btc_loan_repayment_address).toBe(
			sandbox.state.offerBtcRepaymentAddresses.get(OFFERS.usdcPolygon),
		);
	});

	it('is not published with the offer; an admin offer has one unless told null', async () => {
		const { json } = await call('GET', `/api/offers/${OFFERS.usdcPolygon}`);
		expect(json).not.toHaveProperty('btc_loan_repayment_address');
		const withAddress = sandbox.admin.addOffer();
		const without = sandbox.admin.addOffer({ btc_loan_repayment_address: null });
		expect(
			runningLoan({ loan_id: withAddress.id } as Partial<Contract>).btc_loan_repayment_address,
		).toMatch(/^tb1q/);
		expect(
			runningLoan({ loan_id: without.id } as Partial<Contract>).btc_loan_repayment_address,
		).toBeNull();
	});
});

describe('POST /api/contracts/{id}/generate-btc-invoice', () => {
	it('answers the invoice of the pending installment due first, with the installment', async () => {
		const contract = stored(CONTRACTS.principalGiven);
		const next = contract.installments
			.filter((item) => item.status === 'pending')
			.sort((a, b) => a.due_date.localeCompare(b.due_date))[0];
		const { status, json } = await invoice(CONTRACTS.principalGiven);
		expect(status).toBe(200);
		expect(Object.keys(json)).toEqual(['invoice', 'installment']);
		expect(Object.keys(json.invoice)).toEqual([
			'id',
			'installment_id',
			'amount_sats',
			'amount_usd',
			'address',
			'expires_at',
			'status',
			'txid',
			'created_at',
			'updated_at',
		]);
		const amount = Math.round((next.principal + next.interest) * 100) / 100;
		expect(json.invoice).toMatchObject({
			installment_id: next.id,
			amount_usd: amount,
			amount_sats: Math.round((amount / 100_000) * 1e8),
			address: contract.btc_loan_repayment_address,
			status: 'pending',
			txid: null,
			expires_at: expect.stringMatching(ISO),
		});
		expect(Date.parse(json.invoice.expires_at) - Date.parse(json.invoice.created_at)).toBe(
			15 * 60_000,
		);
		expect(json.installment).toEqual(next);
		expect(Object.keys(json.installment)).toEqual([
			'id',
			'principal',
			'interest',
			'due_date',
			'status',
			'paid_date',
			'payment_id',
		]);
	});

	it('gives the same invoice back while it is unexpired, a new one after (admin clock)', async () => {
		const first = (await invoice(CONTRACTS.principalGiven)).json.invoice;
		expect((await invoice(CONTRACTS.principalGiven)).json.invoice).toEqual(first);
		const clock = await call('POST', '/__admin/clock', { advance_minutes: 15 }, null);
		expect(Date.parse(clock.json.now)).toBeGreaterThanOrEqual(Date.parse(first.expires_at));
		const second = (await invoice(CONTRACTS.principalGiven)).json.invoice;
		expect(second.id).not.toBe(first.id);
		expect(second.installment_id).toBe(first.installment_id);
		expect(Date.parse(second.created_at)).toBeGreaterThanOrEqual(Date.parse(first.expires_at));
	});

	it('does not check the contract status: any contract with a pending installment gets one', async () => {
		expect((await invoice(CONTRACTS.requested)).status).toBe(200);
	});

	it.each([
		[
			'a euro loan',
			() =>
				runningLoan({
					loan_id: OFFERS.eurBankKyc,
					loan_amount: 1000,
					duration_days: 90,
				} as Partial<Contract>).id,
			'UNSUPPORTED_CURRENCY',
			'Bitcoin repayment is not supported for Eur loans. Only USD-based loans are supported',
		],
		[
			'a lender without a Bitcoin address',
			() => CONTRACTS.marginCall,
			'NO_BTC_REPAYMENT_ADDRESS',
			'This contract does not support Bitcoin repayment. The lender must provide a Bitcoin repayment address',
		],
		[
			'nothing pending',
			() => CONTRACTS.closed,
			'NO_PENDING_INSTALLMENT',
			'No pending installments found for this contract',
		],
	])('refuses %s (400 in both dialects)', async (_case, idOf, code, message) => {
		const id = idOf();
		expect(await invoice(id)).toMatchObject({ status: 400, json: { message } });
		sandbox.configure({ dialect: 'spec' });
		expect(await invoice(id)).toMatchObject({
			status: 400,
			json: { code, details: message, error: expect.any(String) },
		});
	});

	it('answers an unknown or foreign contract with 500 "Something went wrong" (spec: 404)', async () => {
		expect(await invoice(CONTRACTS.otherBorrowers)).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
		sandbox.configure({ dialect: 'spec' });
		expect(await invoice(CONTRACTS.otherBorrowers)).toMatchObject({
			status: 404,
			json: { code: 'CONTRACT_NOT_FOUND' },
		});
	});
});

describe('PUT /api/contracts/{id}/btc-invoice-paid', () => {
	it('marks the invoice and the installment paid, records the payment and answers an empty 200', async () => {
		const loan = runningLoan();
		const { json } = await invoice(loan.id);
		const answer = await reportPaid(loan.id, {
			txid: TXID.toUpperCase(),
			invoice_id: json.invoice.id,
		});
		expect(answer).toMatchObject({ status: 200, text: '' });
		const after = stored(loan.id);
		expect(after.installments[0]).toMatchObject({
			status: 'paid',
			payment_id: TXID,
			paid_date: expect.stringMatching(ISO),
		});
		expect(after.status).toBe('RepaymentProvided');
		expect(after.transactions.at(-1)).toMatchObject({
			txid: TXID,
			transaction_type: 'InstallmentPaid',
		});
		expect(sandbox.state.btcInvoices.get(json.invoice.id)?.invoice).toMatchObject({
			status: 'paid',
			txid: TXID,
		});
	});

	it.each([
		['no txid', { invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e' }, /missing field `txid`/],
		[
			'a short txid',
			{ txid: 'abc', invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e' },
			/^Failed to deserialize the JSON body into the target type: txid: invalid hex string length 3 \(expected 64\)/,
		],
		[
			'an invoice id that is no UUID',
			{ txid: TXID, invoice_id: 'x' },
			/invoice_id: UUID parsing failed/,
		],
	])('refuses %s like serde (422)', async (_case, body, message) => {
		const answer = await reportPaid(CONTRACTS.principalGiven, body);
		expect(answer.status).toBe(422);
		expect(answer.json.message).toMatch(message);
	});

	it('refuses a contract id that is no UUID in plain text (axum Path<Uuid>)', async () => {
		const answer = await reportPaid('contract-1', {
			txid: TXID,
			invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		});
		expect(answer.status).toBe(400);
		expect(answer.type).toMatch(/^text\/plain/);
		expect(answer.text).toMatch(/^Invalid URL: /);
	});

	it("answers the checks in the backend's order: unknown, not pending, expired, foreign, status, mismatch", async () => {
		const unknown = await reportPaid(CONTRACTS.principalGiven, {
			txid: TXID,
			invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		});
		expect(unknown).toMatchObject({
			status: 404,
			json: { message: 'Bitcoin repayment invoice not found' },
		});

		const first = (await invoice(CONTRACTS.principalGiven)).json.invoice;
		expect(
			await reportPaid(CONTRACTS.marginCall, { txid: TXID, invoice_id: first.id }),
		).toMatchObject({
			status: 400,
			json: { message: "Invoice doesn't match contract ID" },
		});
		const asOther = await call(
			'PUT',
			`/api/contracts/${CONTRACTS.principalGiven}/btc-invoice-paid`,
			{ txid: TXID, invoice_id: first.id },
			sandbox.keys.otherBorrower,
		);
		expect(asOther).toMatchObject({ status: 500, json: { message: 'Something went wrong' } });

		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'Undercollateralized');
		expect(
			await reportPaid(CONTRACTS.principalGiven, { txid: TXID, invoice_id: first.id }),
		).toMatchObject({
			status: 400,
			json: {
				message:
					'Cannot mark an installment as paid for a contract with status Undercollateralized',
			},
		});
		sandbox.admin.setContractStatus(CONTRACTS.principalGiven, 'PrincipalGiven');
		expect(
			(await reportPaid(CONTRACTS.principalGiven, { txid: TXID, invoice_id: first.id })).status,
		).toBe(200);
		expect(
			await reportPaid(CONTRACTS.principalGiven, { txid: TXID, invoice_id: first.id }),
		).toMatchObject({
			status: 400,
			json: {
				message: 'This Bitcoin repayment invoice cannot accept payment in its current state',
			},
		});

		const second = (await invoice(CONTRACTS.principalGiven)).json.invoice;
		sandbox.admin.advanceClock(15 * 60_000);
		expect(
			await reportPaid(CONTRACTS.principalGiven, { txid: TXID, invoice_id: second.id }),
		).toMatchObject({
			status: 400,
			json: { message: 'This Bitcoin repayment invoice has expired' },
		});
	});

	it('answers the spec dialect with its envelope and codes', async () => {
		sandbox.configure({ dialect: 'spec' });
		expect(
			await reportPaid(CONTRACTS.principalGiven, {
				txid: 'abc',
				invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
			}),
		).toMatchObject({
			status: 400,
			json: { code: 'INVALID_FIELD' },
		});
		expect(
			await reportPaid(CONTRACTS.principalGiven, {
				txid: TXID,
				invoice_id: '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
			}),
		).toMatchObject({
			status: 404,
			json: { code: 'INVOICE_NOT_FOUND', details: 'Bitcoin repayment invoice not found' },
		});
	});
});

describe('GET /api/contracts/{id}/claim and /recover', () => {
	it.each([
		['', 'missing field `fee_rate`'],
		['?fee_rate=', 'cannot parse integer from empty string'],
		['?fee_rate=1.5', 'invalid digit found in string'],
		['?fee_rate=-1', 'invalid digit found in string'],
		['?fee_rate=18446744073709551616', 'number too large to fit in target type'],
	])('refuses the query %s in plain text, before anything else', async (query, reason) => {
		const answer = await claim(CONTRACTS.otherBorrowers, query);
		expect(answer).toMatchObject({
			status: 400,
			text: `Failed to deserialize query string: ${reason}`,
		});
		expect(answer.type).toMatch(/^text\/plain/);
	});

	it('refuses a missing fee rate with the spec envelope in the spec dialect', async () => {
		sandbox.configure({ dialect: 'spec' });
		expect(await claim(CONTRACTS.principalGiven, '')).toMatchObject({
			status: 400,
			json: { code: 'INVALID_QUERY' },
		});
	});

	it('refuses a claim while anything is owed, reported-but-unconfirmed included', async () => {
		const loan = runningLoan();
		const message = 'Cannot claim collateral until loan has been repaid';
		expect(await claim(loan.id)).toMatchObject({ status: 400, json: { message } });
		const { json } = await invoice(loan.id);
		await reportPaid(loan.id, { txid: TXID, invoice_id: json.invoice.id });
		expect(stored(loan.id).status).toBe('RepaymentProvided');
		expect(await claim(loan.id)).toMatchObject({ status: 400, json: { message } });
	});

	it('after the lender confirms, answers a real PSBT spending the collateral, a checksummed descriptor and the borrower key', async () => {
		const loan = await confirmedLoan();
		expect(loan.status).toBe('RepaymentConfirmed');
		expect(sandbox.state.btcInvoices.size).toBe(1);
		expect([...sandbox.state.btcInvoices.values()][0].invoice.status).toBe('confirmed');
		const { status, json } = await claim(loan.id, '?fee_rate=10');
		expect(status).toBe(200);
		expect(Object.keys(json)).toEqual(['psbt', 'collateral_descriptor', 'borrower_pk']);
		expect(json.psbt).toMatch(/^70736274ff/);
		expect(json.borrower_pk).toBe(loan.borrower_pk);
		const descriptor = String(json.collateral_descriptor);
		expect(descriptor).toMatch(
			/^wsh\(multi\(2,0[23][0-9a-f]{64},0[23][0-9a-f]{64},0[23][0-9a-f]{64}\)\)#[02-9ac-hj-np-z]{8}$/,
		);
		expect(withDescriptorChecksum(descriptor.split('#')[0])).toBe(descriptor);
		const signed = parseTransactionHex(standInSign(json.psbt));
		expect(signed?.inputs[0]).toMatchObject({
			txid:
				loan.transactions.find((t) => t.transaction_type === 'Funding')?.txid ?? expect.any(String),
			vout: 0,
		});
		const paid = (signed?.outputs ?? []).reduce((sum, output) => sum + Number(output.value), 0);
		expect(loan.deposited_sats - paid).toBeGreaterThan(0); // the miner fee
		expect(signed?.outputs).toHaveLength(2); // the borrower and the origination fee
	});

	it("computes the descriptor checksum of BIP-380's example", () => {
		expect(withDescriptorChecksum('raw(deadbeef)')).toBe('raw(deadbeef)#89f8spxm');
	});

	it('fails with 500 when the fee would eat the collateral, and once the collateral is gone', async () => {
		const loan = await confirmedLoan();
		expect(await claim(loan.id, '?fee_rate=100000000')).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
		expect(await claim(CONTRACTS.closed)).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
	});

	it('recovers only in CollateralRecoverable, and pays no origination fee', async () => {
		expect(await recover(CONTRACTS.principalGiven)).toMatchObject({
			status: 400,
			json: { message: 'Cannot recover collateral from a contract with status PrincipalGiven' },
		});
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralRecoverable');
		const { status, json } = await recover(CONTRACTS.approved);
		expect(status).toBe(200);
		expect(parseTransactionHex(standInSign(json.psbt))?.outputs).toHaveLength(1);
	});
});

describe('POST /api/contracts/{id}/broadcast-claim and /broadcast-recover', () => {
	it('broadcasts the signed claim: {txid}, ClosingByClaim, then Closed when the chain confirms it', async () => {
		const loan = await confirmedLoan();
		const signed = standInSign((await claim(loan.id)).json.psbt);
		const answer = await call('POST', `/api/contracts/${loan.id}/broadcast-claim`, { tx: signed });
		const txid = txidOf(
			parseTransactionHex(signed) as NonNullable<ReturnType<typeof parseTransactionHex>>,
		);
		expect(answer).toMatchObject({ status: 200, json: { txid } });
		expect(stored(loan.id).status).toBe('ClosingByClaim');
		// Not mined yet: the PSBT can still be fetched; a second broadcast fails.
		expect((await claim(loan.id)).status).toBe(200);
		expect(
			(await call('POST', `/api/contracts/${loan.id}/broadcast-claim`, { tx: signed })).status,
		).toBe(500);

		const closed = await call('POST', `/__admin/contracts/${loan.id}/confirm-claim`, {}, null);
		expect(closed.json).toMatchObject({ status: 'Closed', collateral_sats: 0 });
		expect((await claim(loan.id)).status).toBe(500);
	});

	it.each([
		['not hex', 'zz'],
		['a PSBT', '70736274ff01000a0200000000000000000000'],
		['a truncated transaction', '0200000001'],
		[
			'a transaction with data after it',
			`${'01000000'}01${'00'.repeat(32)}0000000000ffffffff0100000000000000000000000000ff`,
		],
	])('answers 400 "Failed to parse signed claim TX" for %s', async (_case, tx) => {
		const loan = await confirmedLoan();
		expect(await call('POST', `/api/contracts/${loan.id}/broadcast-claim`, { tx })).toMatchObject({
			status: 400,
			json: { message: 'Failed to parse signed claim TX' },
		});
	});

	it('answers a body without tx like serde (422), a foreign contract with a clean 404', async () => {
		const missing = await call(
			'POST',
			`/api/contracts/${CONTRACTS.principalGiven}/broadcast-claim`,
			{},
		);
		expect(missing.status).toBe(422);
		expect(missing.json.message).toMatch(/missing field `tx`/);
		expect(
			await call('POST', `/api/contracts/${CONTRACTS.otherBorrowers}/broadcast-claim`, {
				tx: '00',
			}),
		).toMatchObject({
			status: 404,
			json: { message: 'Contract not found' },
		});
	});

	it('fails (500) for a transaction the hub did not sign or that carries no witness', async () => {
		const loan = await confirmedLoan();
		const other = await confirmedLoan();
		const forOther = standInSign((await claim(other.id)).json.psbt);
		expect(
			(await call('POST', `/api/contracts/${loan.id}/broadcast-claim`, { tx: forOther })).status,
		).toBe(500);
		expect(stored(loan.id).status).toBe('RepaymentConfirmed');
	});

	it('broadcasts a recovery: ClosingByRecovery, then ClosedByRecovery in the same request', async () => {
		sandbox.admin.setContractStatus(CONTRACTS.approved, 'CollateralRecoverable');
		const signed = standInSign((await recover(CONTRACTS.approved)).json.psbt);
		expect(
			await call('POST', `/api/contracts/${CONTRACTS.approved}/broadcast-recover`, { tx: 'zz' }),
		).toMatchObject({
			status: 400,
			json: { message: 'Failed to parse signed claim TX' },
		});
		const answer = await call('POST', `/api/contracts/${CONTRACTS.approved}/broadcast-recover`, {
			tx: signed,
		});
		expect(answer).toMatchObject({
			status: 200,
			json: { txid: expect.stringMatching(/^[0-9a-f]{64}$/) },
		});
		const contract = stored(CONTRACTS.approved);
		expect(contract.status).toBe('ClosedByRecovery');
		expect(
			contract.timeline.slice(-2).map((event) => (event.event as { status?: string }).status),
		).toEqual(['ClosingByRecovery', 'ClosedByRecovery']);
		expect(
			await call('POST', `/api/contracts/${CONTRACTS.approved}/broadcast-recover`, { tx: signed }),
		).toMatchObject({
			status: 400,
			json: { message: 'Cannot recover collateral from a contract with status ClosedByRecovery' },
		});
	});

	it('answers an unknown contract on broadcast-recover with 500 (it loads the contract by borrower)', async () => {
		expect(
			await call('POST', `/api/contracts/${CONTRACTS.otherBorrowers}/broadcast-recover`, {
				tx: '00',
			}),
		).toMatchObject({
			status: 500,
			json: { message: 'Something went wrong' },
		});
	});
});

describe('admin: the lender, the chain and the clock', () => {
	it('confirms paid installments over HTTP and refuses what is not paid', async () => {
		const loan = runningLoan();
		const refused = await call(
			'POST',
			`/__admin/contracts/${loan.id}/confirm-installments`,
			{},
			null,
		);
		expect(refused).toMatchObject({ status: 400, json: { code: 'INVALID_BODY' } });
		const { json } = await invoice(loan.id);
		await reportPaid(loan.id, { txid: TXID, invoice_id: json.invoice.id });
		const confirmed = await call(
			'POST',
			`/__admin/contracts/${loan.id}/confirm-installments`,
			{ installment_ids: [loan.installments[0].id] },
			null,
		);
		expect(confirmed).toMatchObject({ status: 200, json: { status: 'RepaymentConfirmed' } });
		expect(confirmed.json.installments[0].status).toBe('confirmed');
		expect(
			confirmed.json.timeline.find(
				(event: { event: { type: string } }) => event.event.type === 'installment_payment',
			).event.is_confirmed,
		).toBe(true);
	});

	it('refuses to confirm a claim that was never broadcast, and a clock that goes back', async () => {
		expect(
			await call('POST', `/__admin/contracts/${CONTRACTS.principalGiven}/confirm-claim`, {}, null),
		).toMatchObject({ status: 400 });
		expect(await call('POST', '/__admin/clock', { advance_ms: -1 }, null)).toMatchObject({
			status: 400,
		});
	});

	it('puts the clock back on reset', () => {
		const before = Date.now();
		sandbox.admin.advanceClock(3_600_000);
		expect(sandbox.state.now().getTime()).toBeGreaterThanOrEqual(before + 3_600_000);
		sandbox.reset();
		expect(sandbox.state.now().getTime()).toBeLessThan(before + 3_600_000);
	});
});
