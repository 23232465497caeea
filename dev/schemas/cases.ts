/**
 * How each operation is run to learn what it outputs: for every resource and operation of the node,
 * one or more cases against the sandbox, each a successful run as a user would make it (the
 * parameters' defaults, so Simplify on where there is one). Several cases of one operation show the
 * fields that differ from one record to the next (a funded loan and a request, a field that is
 * sometimes null); `generate.ts` runs each in both dialects of the sandbox unless it names one, and
 * joins what all of them output.
 *
 * A new operation needs a case here (the parameters of its happy path, as in its integration test),
 * then `npm run schemas`.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TestCredential } from '../harness/n8n';
import { publicKeyOf, standInSignMessage } from '../sandbox/messageSigner';
import { SEED_IDS, type Contract, type Sandbox } from '../sandbox/server';
import { standInSign, standInSignArk } from '../sandbox/standInSigner';

export type Dialect = 'spec' | 'live';

export interface CaseContext {
	sandbox: Sandbox;
	/**
	 * Runs an operation of the node (the version being generated) with the borrower key and gives its
	 * output items; an error fails the generation. For what a case must do first through the node,
	 * such as creating the invoice an operation reports paid.
	 */
	run(resource: string, operation: string, parameters: IDataObject): Promise<IDataObject[]>;
}

/** The run a case makes: the operation's parameters, and what else it needs. */
export interface CaseRun {
	parameters: IDataObject;
	/** The node's input items (default one empty item). */
	items?: IDataObject[];
	/** The key the credential holds (default the borrower's). */
	key?: 'borrower' | 'master';
}

export interface OutputCase {
	/** What the case shows, e.g. "a funded loan". */
	name: string;
	/** The dialects the operation works in (default both). */
	dialects?: Dialect[];
	prepare(context: CaseContext): CaseRun | Promise<CaseRun>;
}

const CONTRACTS = SEED_IDS.contracts;
const OFFERS = SEED_IDS.offers;
const SEALING_SECRET = '5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal5eal';
const TXID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
/** The public key of private key 1 (the generator point). */
const PUBLIC_KEY = '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798';
const COLLATERAL_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const STABLECOIN_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
/** Arkade's documented keys as a test-network Ark address. */
const ARK_ADDRESS =
	'tark1qqellv77udfmr20tun8dvju5vgudpf9vxe8jwhthrkn26fz96pawqfdy8nk05rsmrf8h94j26905e7n6sng8y059z8ykn2j5xcuw4xt846qj6x';
/** Everything Lendasat's backend needs to create a contract, as Additional Fields. */
const LIVE_FIELDS = {
	collateralAddress: COLLATERAL_ADDRESS,
	repaymentAddress: STABLECOIN_ADDRESS,
	borrowerPublicKey: PUBLIC_KEY,
	derivationPath: "m/84'/1'/0'/0/0",
	loanType: 'StableCoin',
};
/** The stand-in wallets whose keys sign messages and whose public keys encrypt bank details. */
const BORROWER_WALLET = '3b1f0c2d4e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b';
const LENDER_WALLET = '4c2e1d3f5a7b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d';
const BANK_HOLDER = {
	recipientName: 'Satoshi Nakamoto',
	recipientAddress: 'Hauptstraße 1',
	recipientCity: 'Berlin',
	recipientPostCode: '10115',
	recipientCountry: 'Germany',
	bankName: 'Commerzbank',
	bankAddress: 'Kaiserplatz, 60311 Frankfurt',
	bankCountry: 'Germany',
	purposeOfRemittance: 'Loan payout',
};

const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });

/** A case that needs nothing but its parameters. */
const plain = (name: string, parameters: IDataObject, dialects?: Dialect[]): OutputCase => ({
	name,
	dialects,
	prepare: () => ({ parameters }),
});

/** A running loan of the borrower (USDC on Polygon, one bullet installment), from `offer`. */
function runningLoan(sandbox: Sandbox, offer: string = OFFERS.usdcPolygon): Contract {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: offer,
		loan_amount: 1000,
		duration_days: 30,
		status: 'PrincipalGiven',
	});
}

/** Repays a running loan's installment in bitcoin through the node; the lender confirms it. */
async function repaid({ sandbox, run }: CaseContext, loan: Contract): Promise<string> {
	const [invoice] = await run('contract', 'createBtcInvoice', { contractId: byId(loan.id) });
	await run('contract', 'reportBtcInvoicePaid', {
		contractId: byId(loan.id),
		invoiceId: String(invoice.id),
		txid: TXID,
	});
	sandbox.admin.confirmInstallments(loan.id);
	return loan.id;
}

/** A contract whose lender never paid out, its collateral recoverable by the borrower. */
function recoverable(sandbox: Sandbox): string {
	const loan = sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.usdcPolygon,
		status: 'CollateralConfirmed',
	});
	sandbox.admin.setContractStatus(loan.id, 'CollateralRecoverable');
	return loan.id;
}

/** A repaid Arkade loan whose VTXOs became recoverable: it must be settled in an Ark batch. */
async function settlingArkadeLoan(context: CaseContext): Promise<string> {
	const id = await repaid(context, runningLoan(context.sandbox, OFFERS.arkade));
	context.sandbox.admin.setArkVtxosRecoverable(id);
	return id;
}

/** An Approved euro loan without bank details, its keys those of the two stand-in wallets. */
function fiatContract(sandbox: Sandbox): string {
	return sandbox.admin.createContract(sandbox.keys.borrower, {
		loan_id: OFFERS.eurBankKyc,
		status: 'Approved',
		borrower_pk: publicKeyOf(BORROWER_WALLET),
		lender_pk: publicKeyOf(LENDER_WALLET),
	} as Partial<Contract>).id;
}

/** Adds a running Arkade loan and an approved euro loan to the borrower's seeded contracts. */
function withArkadeAndEuroLoans(sandbox: Sandbox): void {
	runningLoan(sandbox, OFFERS.arkade);
	fiatContract(sandbox);
}

async function openDispute({ run }: CaseContext, contractId: string): Promise<string> {
	const [dispute] = await run('dispute', 'create', {
		contractId: byId(contractId),
		reason: 'The loan was never paid out',
		message: 'The collateral confirmed two days ago.',
	});
	return String(dispute.id);
}

export const OUTPUT_CASES: Record<string, Record<string, OutputCase[]>> = {
	account: {
		create: [
			{
				name: 'a partner creates an account',
				prepare: () => ({
					key: 'master',
					parameters: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
				}),
			},
			{
				name: 'a partner creates an account, its key sealed',
				prepare: () => ({
					key: 'master',
					parameters: {
						name: 'Alan Turing',
						email: 'alan@example.com',
						timezone: 'Europe/London',
						options: { sealApiKey: true },
					},
				}),
			},
		],
		sealApiKey: [
			{
				name: "a borrower's key sealed",
				prepare: ({ sandbox }) => ({
					key: 'master',
					parameters: { keyToSeal: sandbox.keys.borrower },
				}),
			},
		],
		createWithOwnKey: [
			plain('an account from a referral code', {
				name: 'Grace Hopper',
				email: 'grace@example.com',
				referralCode: SEED_IDS.referralCodes.active,
				additionalFields: { timezone: 'America/New_York' },
			}),
			plain('an account from a referral code, its key sealed', {
				name: 'Katherine Johnson',
				email: 'katherine@example.com',
				referralCode: SEED_IDS.referralCodes.active,
				options: { sealApiKey: true },
			}),
		],
	},
	apiKey: {
		create: [plain('a new key', { description: 'Reporting' })],
		delete: [
			{
				name: 'a key made for it',
				prepare: async ({ run }) => {
					await run('apiKey', 'create', { description: 'Short-lived' });
					const keys = await run('apiKey', 'getAll', {});
					const made = keys.find((key) => key.description === 'Short-lived');
					return { parameters: { apiKeyId: made?.id as number } };
				},
			},
		],
		getAll: [plain("the borrower's keys", {})],
	},
	bringin: {
		connect: [
			plain('an address without a Bringin account', { bringinEmail: 'new.user@example.com' }),
			plain('an address with a Bringin account', { bringinEmail: 'borrower@sandbox.example' }),
		],
		getStatus: [plain('not connected', {})],
	},
	card: {
		create: [plain('a card paid in USDC', { amountUsd: 100 })],
		getAll: [plain("the borrower's cards", {})],
		getTransactions: [plain("the main card's transactions", { cardId: SEED_IDS.cards.main })],
		topUp: [
			plain('a top-up in bitcoin', {
				cardId: SEED_IDS.cards.main,
				amountUsd: 50,
				currency: 'BtcBitcoin',
			}),
		],
	},
	contract: {
		broadcastArkClaim: [
			{
				name: 'a repaid Arkade loan',
				dialects: ['live'],
				prepare: async (context) => {
					const id = await repaid(context, runningLoan(context.sandbox, OFFERS.arkade));
					const [claim] = await context.run('contract', 'getArkClaimPsbts', {
						contractId: byId(id),
					});
					return {
						parameters: {
							contractId: byId(id),
							arkPsbt: standInSignArk(String(claim.ark_psbt)),
							checkpointPsbts: (claim.checkpoint_psbts as string[]).map(standInSignArk).join('\n'),
						},
					};
				},
			},
		],
		broadcastClaim: [
			{
				name: 'a repaid loan',
				prepare: async (context) => {
					const id = await repaid(context, runningLoan(context.sandbox));
					const [claim] = await context.run('contract', 'getClaimPsbt', { contractId: byId(id) });
					return {
						parameters: { contractId: byId(id), signedTx: standInSign(String(claim.psbt)) },
					};
				},
			},
		],
		broadcastRecovery: [
			{
				name: 'a loan the lender never paid out',
				prepare: async ({ sandbox, run }) => {
					const id = recoverable(sandbox);
					const [recovery] = await run('contract', 'getRecoveryPsbt', { contractId: byId(id) });
					return {
						parameters: { contractId: byId(id), signedTx: standInSign(String(recovery.psbt)) },
					};
				},
			},
		],
		cancel: [plain('a contract request', { contractId: byId(CONTRACTS.requested) })],
		create: [
			plain('with everything the live backend needs', {
				loanId: byId(OFFERS.usdcPolygon),
				loanAmount: 1500,
				durationDays: 30,
				additionalFields: LIVE_FIELDS,
			}),
			plain(
				'from an offer that accepts at once',
				{
					loanId: byId(OFFERS.autoAccept),
					loanAmount: 1000,
					durationDays: 30,
					additionalFields: LIVE_FIELDS,
				},
				['live'],
			),
			plain(
				'from an Arkade offer',
				{
					loanId: byId(OFFERS.arkade),
					loanAmount: 1000,
					durationDays: 30,
					additionalFields: {
						...LIVE_FIELDS,
						collateralAddress: ARK_ADDRESS,
						derivationPath: "m/83696968'/11811'/0/0",
					},
				},
				['live'],
			),
		],
		createBtcInvoice: [
			plain('a loan with monthly installments', { contractId: byId(CONTRACTS.principalGiven) }),
		],
		extend: [plain('a running loan', { contractId: byId(CONTRACTS.principalGiven), days: 30 })],
		finishArkSettlement: [
			{
				name: 'recoverable VTXOs of a repaid Arkade loan',
				dialects: ['live'],
				prepare: async (context) => {
					const id = await settlingArkadeLoan(context);
					const [settlement] = await context.run('contract', 'getArkSettlement', {
						contractId: byId(id),
					});
					return {
						parameters: {
							contractId: byId(id),
							intentPsbt: standInSignArk(String(settlement.intent_proof)),
							forfeitPsbts: JSON.stringify(
								(settlement.forfeit_psbts as string[]).map(standInSignArk),
							),
						},
					};
				},
			},
		],
		get: [
			plain('a contract request', { contractId: byId(CONTRACTS.requested) }),
			plain('an approved contract', { contractId: byId(CONTRACTS.approved) }),
			plain('a loan with monthly installments', { contractId: byId(CONTRACTS.principalGiven) }),
			plain('a loan in a margin call', { contractId: byId(CONTRACTS.marginCall) }),
			plain('a closed loan', { contractId: byId(CONTRACTS.closed) }),
			{
				name: 'an Arkade loan',
				prepare: ({ sandbox }) => ({
					parameters: { contractId: byId(runningLoan(sandbox, OFFERS.arkade).id) },
				}),
			},
			{
				name: 'a euro loan',
				prepare: ({ sandbox }) => ({ parameters: { contractId: byId(fiatContract(sandbox)) } }),
			},
		],
		getAll: [
			{
				name: "the borrower's contracts, an Arkade loan and a euro loan among them",
				prepare: ({ sandbox }) => {
					withArkadeAndEuroLoans(sandbox);
					return { parameters: {} };
				},
			},
		],
		getArkClaimPsbts: [
			{
				name: 'a repaid Arkade loan',
				dialects: ['live'],
				prepare: async (context) => ({
					parameters: {
						contractId: byId(await repaid(context, runningLoan(context.sandbox, OFFERS.arkade))),
					},
				}),
			},
		],
		getArkSettlement: [
			{
				name: 'recoverable VTXOs of a repaid Arkade loan',
				dialects: ['live'],
				prepare: async (context) => ({
					parameters: { contractId: byId(await settlingArkadeLoan(context)) },
				}),
			},
		],
		getClaimPsbt: [
			{
				name: 'a repaid loan',
				prepare: async (context) => ({
					parameters: { contractId: byId(await repaid(context, runningLoan(context.sandbox))) },
				}),
			},
		],
		getEvents: [
			{
				name: "the borrower's contracts, an Arkade loan and a euro loan among them, installments due within 25 days",
				prepare: ({ sandbox }) => {
					withArkadeAndEuroLoans(sandbox);
					return { parameters: { daysAhead: 25 } };
				},
			},
			{
				name: 'a partner acting as two borrowers',
				prepare: ({ sandbox }) => ({
					key: 'master',
					items: [
						{ borrower_id: 'alice', api_key: sandbox.keys.borrower },
						{ borrower_id: 'bob', api_key: sandbox.keys.otherBorrower },
					],
					parameters: {
						borrower: '={{ $json.borrower_id }}',
						daysAhead: 25,
						options: { borrowerApiKey: '={{ $json.api_key }}' },
					},
				}),
			},
		],
		getNewEvents: [
			{
				name: 'a partner acting as two borrowers, neither polled before',
				prepare: ({ sandbox }) => {
					withArkadeAndEuroLoans(sandbox);
					return {
						key: 'master',
						items: [
							{ borrower_id: 'alice', api_key: sandbox.keys.borrower, reported: null },
							{ borrower_id: 'bob', api_key: sandbox.keys.otherBorrower, reported: '' },
						],
						parameters: {
							borrower: '={{ $json.borrower_id }}',
							reported: '={{ $json.reported }}',
							daysAhead: 25,
							options: { borrowerApiKey: '={{ $json.api_key }}' },
						},
					};
				},
			},
		],
		getHealth: [
			plain('a healthy loan', { contractId: byId(CONTRACTS.principalGiven) }),
			plain('a loan in a margin call', { contractId: byId(CONTRACTS.marginCall) }),
			plain('a target below the LTV now, so sats are to be sent', {
				contractId: byId(CONTRACTS.principalGiven),
				targetLtv: 0.2,
			}),
		],
		getRecoveryPsbt: [
			{
				name: 'a loan the lender never paid out',
				prepare: ({ sandbox }) => ({ parameters: { contractId: byId(recoverable(sandbox)) } }),
			},
		],
		reportBtcInvoicePaid: [
			{
				name: 'an invoice paid',
				prepare: async ({ run }) => {
					const [invoice] = await run('contract', 'createBtcInvoice', {
						contractId: byId(CONTRACTS.principalGiven),
					});
					return {
						parameters: {
							contractId: byId(CONTRACTS.principalGiven),
							invoiceId: String(invoice.id),
							txid: TXID,
						},
					};
				},
			},
		],
		reportRepayment: [
			{
				name: 'the last installment of a loan',
				prepare: ({ sandbox }) => {
					const [installment] = sandbox.state.contracts.get(CONTRACTS.marginCall)!.contract
						.installments;
					return {
						parameters: {
							contractId: byId(CONTRACTS.marginCall),
							installmentId: installment.id,
							paymentId: TXID,
						},
					};
				},
			},
		],
		sendFiatDetails: [
			{
				name: 'a euro loan paid out to an IBAN',
				prepare: ({ sandbox }) => ({
					parameters: {
						contractId: byId(fiatContract(sandbox)),
						iban: 'DE89 3704 0044 0532 0130 00',
						bic: 'COBADEFFXXX',
						...BANK_HOLDER,
					},
				}),
			},
		],
		updateBorrowerAddress: [
			{
				name: "a new refund address signed by the borrower's wallet",
				prepare: ({ sandbox }) => {
					sandbox.state.contracts.get(CONTRACTS.principalGiven)!.contract.borrower_pk =
						publicKeyOf(BORROWER_WALLET);
					return {
						parameters: {
							contractId: byId(CONTRACTS.principalGiven),
							collateralAddress: COLLATERAL_ADDRESS,
							signature: standInSignMessage(BORROWER_WALLET, COLLATERAL_ADDRESS).base64,
						},
					};
				},
			},
		],
	},
	dispute: {
		addMessage: [
			{
				name: 'a message on an open dispute',
				prepare: async (context) => ({
					parameters: {
						disputeId: await openDispute(context, CONTRACTS.approved),
						message: 'Any news from the lender?',
					},
				}),
			},
		],
		create: [
			plain('a dispute on an approved contract', {
				contractId: byId(CONTRACTS.approved),
				reason: 'The loan was never paid out',
				message: 'The collateral confirmed two days ago.',
			}),
		],
		getAll: [
			{
				name: 'a dispute with messages, and one the lender opened',
				prepare: async (context) => {
					const disputeId = await openDispute(context, CONTRACTS.approved);
					await context.run('dispute', 'addMessage', {
						disputeId,
						message: 'Any news from the lender?',
					});
					await context.run('dispute', 'resolve', { disputeId });
					context.sandbox.admin.startLenderDispute(
						CONTRACTS.approved,
						'The borrower never sent collateral',
					);
					return { parameters: { contractId: byId(CONTRACTS.approved) } };
				},
			},
		],
		resolve: [
			{
				name: 'an open dispute',
				prepare: async (context) => ({
					parameters: { disputeId: await openDispute(context, CONTRACTS.approved) },
				}),
			},
		],
	},
	loanApplication: {
		create: [
			plain('terms with every field', {
				ltv: 0.6,
				interestRate: 0.1,
				loanAmountMin: 500,
				loanAmountMax: 2500,
				durationDaysMin: 30,
				durationDaysMax: 90,
				loanAsset: 'UsdtEth',
				loanType: 'StableCoin',
				repaymentPlan: 'interest_only_monthly',
				borrowerPublicKey: PUBLIC_KEY,
				derivationPath: "m/84'/0'/0'/0/0",
				collateralAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
				additionalFields: {
					repaymentAddress: STABLECOIN_ADDRESS,
					clientContractId: '7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
				},
			}),
		],
		delete: [
			plain('an available application', { loanApplicationId: SEED_IDS.loanApplications.available }),
		],
		get: [
			plain('an available application', { loanApplicationId: SEED_IDS.loanApplications.available }),
			plain('a deleted application', { loanApplicationId: SEED_IDS.loanApplications.deleted }),
		],
		getAll: [plain("the borrower's applications, the deleted ones too", { includeDeleted: true })],
		update: [
			plain('a new rate and maximum', {
				loanApplicationId: SEED_IDS.loanApplications.available,
				updateFields: { interestRate: 0.095, loanAmountMax: 8000 },
			}),
		],
	},
	notification: {
		getAll: [plain('every notification, read or not', { unreadOnly: false })],
		getSettings: [plain('the stored switches', {})],
		markAsRead: [
			{
				name: 'the newest notification',
				prepare: async ({ run }) => {
					const [newest] = await run('notification', 'getAll', {});
					return {
						parameters: { scope: 'one', notificationId: String((newest.data as IDataObject).id) },
					};
				},
			},
			plain('all', { scope: 'all' }),
		],
		updateSettings: [plain('one switch off', { updateFields: { onLoginEmail: false } })],
	},
	offer: {
		get: [
			plain('a stablecoin offer', { offerId: byId(OFFERS.usdcPolygon) }),
			plain('a euro offer with KYC', { offerId: byId(OFFERS.eurBankKyc) }),
		],
		getAll: [plain('every offer', {})],
		getByLender: [plain("one lender's offers", { lenderId: SEED_IDS.lenders.northwind })],
	},
	price: {
		getHistory: [plain('the last day', {})],
	},
	profile: {
		getBorrower: [plain('the borrower', { borrowerId: SEED_IDS.users.borrower })],
		getLender: [plain('a lender', { lenderId: SEED_IDS.lenders.northwind })],
	},
	user: {
		getMe: [plain('the borrower', {})],
		update: [
			plain('time zone and language', {
				updateFields: { timezone: 'America/New_York', locale: 'de-DE' },
			}),
		],
	},
};

/** The credential of a case: the sandbox's borrower or master key in a Custom credential. */
export function credentialOf(sandbox: Sandbox, key: CaseRun['key'] = 'borrower'): TestCredential {
	return {
		environment: 'custom',
		baseUrl: sandbox.url,
		keyType: key,
		apiKey: key === 'master' ? sandbox.keys.master : sandbox.keys.borrower,
		// For the operations that seal a key (Account → Create's Seal API Key, Seal API Key).
		sealingSecret: SEALING_SECRET,
	};
}
