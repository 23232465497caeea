/**
 * The deterministic seed: three users with their keys, three lenders, eight loan offers, contracts in
 * several states and some notifications. Seeded records have fixed UUIDs; timestamps are relative to
 * the sandbox clock at seed time (pass a fixed `now` for byte-identical runs).
 */
import { testnetAddressFor } from './bitcoin';
import {
	borrowerKeyFor,
	evmAddressFor,
	masterKeyFor,
	publicKeyFor,
	sha256Hex,
	solanaAddressFor,
	txidFor,
} from './ids';
import { addLoanApplication } from './loanApplications';
import { createContractEntry, outstandingBalance } from './loans';
import { CARD_IDS, seedMoon } from './moon';
import {
	createEmptyState,
	issueKey,
	pushNotification,
	recordStatus,
	type SandboxState,
} from './state';
import type {
	ContractEntry,
	LenderStats,
	LoanOffer,
	NotificationMessage,
	SandboxKeys,
	SeedOptions,
	User,
} from './types';

export const DEFAULT_SEED = 'lendasat-sandbox';

export const SEED_IDS = {
	users: {
		partner: 'b0000000-0000-4000-8000-0000000000a0',
		borrower: 'b0000000-0000-4000-8000-000000000001',
		otherBorrower: 'b0000000-0000-4000-8000-000000000002',
	},
	lenders: {
		northwind: '1e000000-0000-4000-8000-000000000001',
		satoshiCapital: '1e000000-0000-4000-8000-000000000002',
		alpenBank: '1e000000-0000-4000-8000-000000000003',
	},
	offers: {
		usdcPolygon: '0ffe0000-0000-4000-8000-000000000001',
		usdtEthereumMonthly: '0ffe0000-0000-4000-8000-000000000002',
		usdcSolanaShort: '0ffe0000-0000-4000-8000-000000000003',
		eurBankKyc: '0ffe0000-0000-4000-8000-000000000004',
		usdtPolygonIndirect: '0ffe0000-0000-4000-8000-000000000005',
		usdtLiquidWeekly: '0ffe0000-0000-4000-8000-000000000006',
		/** UsdcPol, Direct, collateral ArkadeBtc: hidden unless collateral_asset_type=Arkade or Any. */
		arkade: '0ffe0000-0000-4000-8000-000000000007',
		/** UsdtPol, Direct, auto-accepting, no KYC: a live create answers status Approved at once. */
		autoAccept: '0ffe0000-0000-4000-8000-000000000008',
		/** Alias of eurBankKyc: kyc_link set (and fiat), so never auto-accepted although its lender would. */
		kyc: '0ffe0000-0000-4000-8000-000000000004',
		/** Alias of usdtPolygonIndirect: loan_payout Indirect. */
		indirect: '0ffe0000-0000-4000-8000-000000000005',
	},
	contracts: {
		requested: 'c0000000-0000-4000-8000-000000000001',
		approved: 'c0000000-0000-4000-8000-000000000002',
		principalGiven: 'c0000000-0000-4000-8000-000000000003',
		marginCall: 'c0000000-0000-4000-8000-000000000004',
		closed: 'c0000000-0000-4000-8000-000000000005',
		otherBorrowers: 'c0000000-0000-4000-8000-000000000006',
	},
	/** Referral codes for POST /api/create-api-account/byok (the partner's). */
	referralCodes: {
		active: 'LAS-SANDB',
		/** Expired yesterday: refused like an unknown code. */
		expired: 'LAS-OLD42',
	},
	loanApplications: {
		/** The borrower's Available application: UsdcPol, 1000–5000, 30–180 days, LTV 0.5, 11 %. */
		available: 'a0000000-0000-4000-8000-000000000001',
		/** The borrower's Deleted application (UsdtEth), listed by GET /api/loan-applications all the same. */
		deleted: 'a0000000-0000-4000-8000-000000000002',
		/** Belongs to the other borrower. */
		otherBorrowers: 'a0000000-0000-4000-8000-000000000003',
	},
	/** PayWithMoon cards (moon.ts): `main` with transactions, `nearLimit` at 4,990 USD, `otherBorrowers`. */
	cards: CARD_IDS,
} as const;

const DAY_MS = 86_400_000;

function daysBefore(base: Date, days: number): string {
	return new Date(base.getTime() - Math.round(days * DAY_MS)).toISOString();
}

function seedUser(
	state: SandboxState,
	base: Date,
	id: string,
	name: string,
	email: string,
	timezone: string,
): User {
	const createdAt = daysBefore(base, 400);
	const user: User = {
		id,
		name,
		email,
		verified: true,
		timezone,
		locale: 'en',
		totp_enabled: false,
		created_at: createdAt,
		updated_at: createdAt,
		personal_telegram_token: sha256Hex(`${id}:telegram`).slice(0, 32),
		personal_referral_codes: [],
		used_referral_code: null,
		first_time_discount_rate: 0,
	};
	state.users.set(id, user);
	return user;
}

function seedLender(
	state: SandboxState,
	base: Date,
	lender: Omit<LenderStats, 'joined_at'>,
	joinedDaysAgo: number,
): LenderStats {
	const record: LenderStats = { ...lender, joined_at: daysBefore(base, joinedDaysAgo) };
	state.lenders.set(record.id, record);
	return record;
}

function seedLenders(
	state: SandboxState,
	base: Date,
): Record<keyof typeof SEED_IDS.lenders, LenderStats> {
	const ids = SEED_IDS.lenders;
	return {
		northwind: seedLender(
			state,
			base,
			{
				id: ids.northwind,
				name: 'Northwind Lending',
				successful_contracts: 128,
				timezone: 'Europe/Vienna',
				vetted: true,
			},
			700,
		),
		satoshiCapital: seedLender(
			state,
			base,
			{
				id: ids.satoshiCapital,
				name: 'Satoshi Capital',
				successful_contracts: 42,
				timezone: 'America/New_York',
				vetted: true,
			},
			365,
		),
		alpenBank: seedLender(
			state,
			base,
			{
				id: ids.alpenBank,
				name: 'Alpen Credit',
				successful_contracts: 7,
				timezone: null,
				vetted: false,
			},
			90,
		),
	};
}

type OfferSeed = Omit<
	LoanOffer,
	'status' | 'lender_pk' | 'collateral_asset' | 'loan_repayment_address'
> & {
	loan_repayment_address?: string;
	collateral_asset?: string;
	auto_accept?: boolean;
	/** The lender takes repayments in bitcoin: the offer gets a Bitcoin repayment address. */
	btc_repayment?: boolean;
};

function addSeedOffer(state: SandboxState, seed: OfferSeed): void {
	const { auto_accept: autoAccept, btc_repayment: btcRepayment, ...offer } = seed;
	if (btcRepayment)
		state.offerBtcRepaymentAddresses.set(
			offer.id,
			testnetAddressFor(`${state.seed}:${offer.id}:btc-repay`),
		);
	state.offers.set(offer.id, {
		...offer,
		status: 'Available',
		loan_repayment_address:
			offer.loan_repayment_address ?? evmAddressFor(state.seed, `${offer.id}:repay`),
		lender_pk: publicKeyFor('lendasat-sandbox-lenders', offer.lender.id),
		collateral_asset: offer.collateral_asset ?? 'BitcoinBtc',
	});
	if (autoAccept) state.autoAcceptOffers.add(offer.id);
}

function seedOffers(state: SandboxState, lenders: ReturnType<typeof seedLenders>): void {
	const ids = SEED_IDS.offers;
	const standardFee = [{ fee: 0.01, from_day: 0, to_day: 100000 }];
	addSeedOffer(state, {
		id: ids.usdcPolygon,
		name: 'USDC on Polygon, 12% flat',
		lender: lenders.northwind,
		min_ltv: 0.5,
		interest_rate: 0.12,
		loan_amount_min: 100,
		loan_amount_max: 10000,
		duration_days_min: 7,
		duration_days_max: 365,
		loan_asset: 'UsdcPol',
		loan_payout: 'Direct',
		origination_fee: standardFee,
		kyc_link: null,
		repayment_plan: 'bullet',
		btc_repayment: true,
	});
	addSeedOffer(state, {
		id: ids.usdtEthereumMonthly,
		name: 'USDT on Ethereum, monthly interest',
		lender: lenders.satoshiCapital,
		min_ltv: 0.5,
		interest_rate: 0.095,
		loan_amount_min: 500,
		loan_amount_max: 25000,
		duration_days_min: 30,
		duration_days_max: 360,
		loan_asset: 'UsdtEth',
		loan_payout: 'Direct',
		origination_fee: [
			{ fee: 0.015, from_day: 0, to_day: 181 },
			{ fee: 0.01, from_day: 181, to_day: 100000 },
		],
		kyc_link: null,
		repayment_plan: 'interest_only_monthly',
		btc_repayment: true,
	});
	addSeedOffer(state, {
		id: ids.usdcSolanaShort,
		name: 'USDC on Solana, short term',
		lender: lenders.northwind,
		min_ltv: 0.4,
		interest_rate: 0.15,
		loan_amount_min: 50,
		loan_amount_max: 2000,
		duration_days_min: 7,
		duration_days_max: 90,
		loan_asset: 'UsdcSol',
		loan_payout: 'Direct',
		origination_fee: standardFee,
		kyc_link: null,
		repayment_plan: 'bullet',
		loan_repayment_address: solanaAddressFor(state.seed, `${ids.usdcSolanaShort}:repay`),
	});
	addSeedOffer(state, {
		id: ids.eurBankKyc,
		name: 'EUR bank transfer (KYC)',
		lender: lenders.alpenBank,
		min_ltv: 0.5,
		interest_rate: 0.089,
		loan_amount_min: 1000,
		loan_amount_max: 50000,
		duration_days_min: 90,
		duration_days_max: 730,
		loan_asset: 'Eur',
		loan_payout: 'Direct',
		origination_fee: standardFee,
		kyc_link: 'https://kyc.sandbox.lendasat.example/verify/alpen-credit',
		repayment_plan: 'interest_only_monthly',
		loan_repayment_address: 'DE89370400440532013000',
		auto_accept: true,
		btc_repayment: true,
	});
	addSeedOffer(state, {
		id: ids.usdtPolygonIndirect,
		name: 'USDT on Polygon via partner',
		lender: lenders.satoshiCapital,
		min_ltv: 0.5,
		interest_rate: 0.11,
		loan_amount_min: 100,
		loan_amount_max: 5000,
		duration_days_min: 14,
		duration_days_max: 180,
		loan_asset: 'UsdtPol',
		loan_payout: 'Indirect',
		origination_fee: standardFee,
		kyc_link: null,
		repayment_plan: 'bullet',
	});
	addSeedOffer(state, {
		id: ids.usdtLiquidWeekly,
		name: 'USDT on Liquid, weekly interest',
		lender: lenders.northwind,
		min_ltv: 0.45,
		interest_rate: 0.13,
		loan_amount_min: 200,
		loan_amount_max: 15000,
		duration_days_min: 28,
		duration_days_max: 365,
		loan_asset: 'UsdtLiquid',
		loan_payout: 'Direct',
		origination_fee: [{ fee: 0.02, from_day: 0, to_day: 100000 }],
		kyc_link: null,
		repayment_plan: 'interest_only_weekly',
		loan_repayment_address: `lq1qq${sha256Hex(`${state.seed}:liquid`).slice(0, 58)}`,
	});
	addSeedOffer(state, {
		id: ids.arkade,
		name: 'USDC on Polygon, Arkade collateral',
		lender: lenders.northwind,
		min_ltv: 0.5,
		interest_rate: 0.1,
		loan_amount_min: 100,
		loan_amount_max: 5000,
		duration_days_min: 7,
		duration_days_max: 180,
		loan_asset: 'UsdcPol',
		loan_payout: 'Direct',
		origination_fee: standardFee,
		kyc_link: null,
		repayment_plan: 'bullet',
		collateral_asset: 'ArkadeBtc',
		btc_repayment: true,
	});
	addSeedOffer(state, {
		id: ids.autoAccept,
		name: 'USDT on Polygon, instant approval',
		lender: lenders.satoshiCapital,
		min_ltv: 0.5,
		interest_rate: 0.14,
		loan_amount_min: 100,
		loan_amount_max: 20000,
		duration_days_min: 7,
		duration_days_max: 365,
		loan_asset: 'UsdtPol',
		loan_payout: 'Direct',
		origination_fee: standardFee,
		kyc_link: null,
		repayment_plan: 'bullet',
		auto_accept: true,
		btc_repayment: true,
	});
}

interface ContractSeed {
	id: string;
	owner: string;
	offerId: string;
	amount: number;
	days: number;
	createdDaysAgo: number;
	/** Later statuses with how many days ago each was reached. */
	path: [string, number][];
	/** How many installments (from the first) are already paid and confirmed. */
	settledInstallments?: number;
	liquidationStatus?: [string, number];
}

const TRANSACTION_FOR_STATUS: Record<string, string> = {
	CollateralConfirmed: 'Funding',
	PrincipalGiven: 'PrincipalGiven',
	Closed: 'ClaimCollateral',
};

function settleInstallments(
	state: SandboxState,
	base: Date,
	entry: ContractEntry,
	count: number,
): void {
	const now = base.toISOString();
	const contract = entry.contract;
	for (const installment of contract.installments.slice(0, count)) {
		const txid = txidFor(state.seed, `${installment.id}:payment`);
		installment.status = 'confirmed';
		installment.paid_date = installment.due_date < now ? installment.due_date : now;
		installment.payment_id = txid;
		contract.timeline.push({
			date: installment.paid_date,
			txid,
			event: { type: 'installment_payment', installment_id: installment.id, is_confirmed: true },
		});
	}
	contract.balance_outstanding = outstandingBalance(contract);
	contract.timeline.sort((a, b) => a.date.localeCompare(b.date));
}

function seedContract(state: SandboxState, base: Date, seed: ContractSeed): ContractEntry {
	const offer = state.offers.get(seed.offerId);
	if (!offer) throw new Error(`seed offer ${seed.offerId} missing`);
	const entry = createContractEntry(state, {
		id: seed.id,
		offer,
		owner: seed.owner,
		loanAmount: seed.amount,
		durationDays: seed.days,
		status: 'Requested',
		createdAt: daysBefore(base, seed.createdDaysAgo),
	});
	for (const [status, daysAgo] of seed.path) {
		const at = daysBefore(base, daysAgo);
		recordStatus(state, entry.contract, status, at);
		const type = TRANSACTION_FOR_STATUS[status];
		if (type) {
			entry.contract.transactions.push({
				id: state.ids.uuid(),
				contract_id: seed.id,
				txid: txidFor(state.seed, `${seed.id}:${type}`),
				timestamp: at,
				transaction_type: type,
			});
		}
	}
	if (seed.settledInstallments) settleInstallments(state, base, entry, seed.settledInstallments);
	if (seed.liquidationStatus) {
		entry.contract.liquidation_status = seed.liquidationStatus[0];
		entry.contract.updated_at = daysBefore(base, seed.liquidationStatus[1]);
	}
	return entry;
}

function seedContracts(state: SandboxState, base: Date): void {
	const { contracts: ids, offers, users } = SEED_IDS;
	const borrower = users.borrower;
	seedContract(state, base, {
		id: ids.requested,
		owner: borrower,
		offerId: offers.usdcPolygon,
		amount: 1000,
		days: 30,
		createdDaysAgo: 1,
		path: [],
	});
	seedContract(state, base, {
		id: ids.approved,
		owner: borrower,
		offerId: offers.usdtEthereumMonthly,
		amount: 5000,
		days: 90,
		createdDaysAgo: 2,
		path: [['Approved', 1.9]],
	});
	seedContract(state, base, {
		id: ids.principalGiven,
		owner: borrower,
		offerId: offers.usdtEthereumMonthly,
		amount: 2500,
		days: 180,
		createdDaysAgo: 40,
		path: [
			['Approved', 39.9],
			['CollateralSeen', 39.5],
			['CollateralConfirmed', 39.4],
			['PrincipalGiven', 38],
		],
		settledInstallments: 1,
	});
	seedContract(state, base, {
		id: ids.marginCall,
		owner: borrower,
		offerId: offers.usdcSolanaShort,
		amount: 1500,
		days: 60,
		createdDaysAgo: 20,
		path: [
			['Approved', 19.9],
			['CollateralConfirmed', 19],
			['PrincipalGiven', 18],
		],
		liquidationStatus: ['FirstMarginCall', 0.5],
	});
	const closed = seedContract(state, base, {
		id: ids.closed,
		owner: borrower,
		offerId: offers.usdcPolygon,
		amount: 800,
		days: 30,
		createdDaysAgo: 120,
		path: [
			['Approved', 119.9],
			['CollateralConfirmed', 119],
			['PrincipalGiven', 118],
			['RepaymentProvided', 89.5],
			['RepaymentConfirmed', 89],
			['ClosingByClaim', 88.5],
			['Closed', 88],
		],
	});
	settleInstallments(state, base, closed, closed.contract.installments.length);
	seedContract(state, base, {
		id: ids.otherBorrowers,
		owner: users.otherBorrower,
		offerId: offers.usdcPolygon,
		amount: 3000,
		days: 90,
		createdDaysAgo: 30,
		path: [
			['Approved', 29.9],
			['CollateralConfirmed', 29],
			['PrincipalGiven', 28],
		],
	});
}

const EXTRA_STATUSES = [
	'Requested',
	'Approved',
	'PrincipalGiven',
	'Closed',
	'Cancelled',
	'RequestExpired',
];

/** `count` more contracts for the main borrower, older than the hand-written ones. */
export function seedExtraContracts(
	state: SandboxState,
	base: Date,
	owner: string,
	count: number,
): void {
	// The six original seed offers, so that the generated contracts stay what they were.
	const offers = [...state.offers.values()].slice(0, 6);
	for (let index = 0; index < count; index += 1) {
		const offer = offers[index % offers.length];
		const span = Math.max(1, Math.floor(offer.loan_amount_max - offer.loan_amount_min));
		const entry = createContractEntry(state, {
			offer,
			owner,
			loanAmount: offer.loan_amount_min + ((index * 137) % span),
			durationDays:
				offer.duration_days_min +
				((index * 7) % (offer.duration_days_max - offer.duration_days_min + 1)),
			status: 'Requested',
			createdAt: daysBefore(base, 150 + index / 24),
		});
		const status = EXTRA_STATUSES[index % EXTRA_STATUSES.length];
		if (status !== 'Requested')
			recordStatus(state, entry.contract, status, daysBefore(base, 149 + index / 24));
	}
}

function seedLoanApplications(state: SandboxState, base: Date): void {
	const { loanApplications: ids, users } = SEED_IDS;
	addLoanApplication(state, users.borrower, {
		loan_deal_id: ids.available,
		created_at: daysBefore(base, 5),
		updated_at: daysBefore(base, 5),
	});
	addLoanApplication(state, users.borrower, {
		loan_deal_id: ids.deleted,
		loan_asset: 'UsdtEth',
		loan_amount_min: 500,
		loan_amount_max: 2000,
		interest_rate: 0.09,
		repayment_plan: 'interest_only_monthly',
		status: 'Deleted',
		created_at: daysBefore(base, 12),
		updated_at: daysBefore(base, 8),
	});
	addLoanApplication(state, users.otherBorrower, {
		loan_deal_id: ids.otherBorrowers,
		created_at: daysBefore(base, 3),
		updated_at: daysBefore(base, 3),
	});
}

function notification(
	state: SandboxState,
	type: string,
	timestamp: string,
	read: boolean,
	fields: Record<string, unknown>,
): NotificationMessage {
	return { type, data: { id: state.ids.uuid(), timestamp, read, ...fields } };
}

function seedNotifications(state: SandboxState, base: Date): void {
	const { contracts: ids, users } = SEED_IDS;
	const principalGiven = state.contracts.get(ids.principalGiven)?.contract;
	const firstInstallment = principalGiven?.installments[0]?.id ?? '';
	const messages: [string, NotificationMessage][] = [
		[
			users.borrower,
			notification(state, 'ContractUpdate', daysBefore(base, 38), true, {
				contract_id: ids.principalGiven,
				status: 'PrincipalGiven',
			}),
		],
		[
			users.borrower,
			notification(state, 'InstallmentUpdate', daysBefore(base, 10), false, {
				installment_id: firstInstallment,
				contract_id: ids.principalGiven,
				status: 'confirmed',
			}),
		],
		[
			users.borrower,
			notification(state, 'ContractUpdate', daysBefore(base, 1.9), false, {
				contract_id: ids.approved,
				status: 'Approved',
			}),
		],
		[
			users.borrower,
			notification(state, 'ChatMessage', daysBefore(base, 1.5), false, {
				contract_id: ids.approved,
				counterparty_name: 'Satoshi Capital',
			}),
		],
		[
			users.borrower,
			notification(state, 'ContractUpdate', daysBefore(base, 0.5), false, {
				contract_id: ids.marginCall,
				status: 'PrincipalGiven',
			}),
		],
		[
			users.otherBorrower,
			notification(state, 'ContractUpdate', daysBefore(base, 28), false, {
				contract_id: ids.otherBorrowers,
				status: 'PrincipalGiven',
			}),
		],
	];
	for (const [owner, message] of messages) pushNotification(state, owner, message);
}

export function sandboxKeys(seed: string): SandboxKeys {
	return {
		master: masterKeyFor(seed, 'partner'),
		borrower: borrowerKeyFor(seed, 'borrower'),
		otherBorrower: borrowerKeyFor(seed, 'other-borrower'),
	};
}

function seedReferralCodes(state: SandboxState, base: Date): void {
	const { active, expired } = SEED_IDS.referralCodes;
	const owner = SEED_IDS.users.partner;
	state.referralCodes.set(active, {
		code: active,
		owner,
		active: true,
		expires_at: daysBefore(base, -365),
	});
	state.referralCodes.set(expired, {
		code: expired,
		owner,
		active: true,
		expires_at: daysBefore(base, 1),
	});
}

export function seedState(options: SeedOptions, now: () => Date): SandboxState {
	const seed = options.seed ?? DEFAULT_SEED;
	const state = createEmptyState(seed, now);
	const base = now();
	const keys = sandboxKeys(seed);
	const { users } = SEED_IDS;
	seedUser(
		state,
		base,
		users.partner,
		'Sandbox Partner Ltd',
		'partner@sandbox.example',
		'Europe/Zurich',
	);
	seedUser(
		state,
		base,
		users.borrower,
		'Satoshi Sandbox',
		'borrower@sandbox.example',
		'Europe/Berlin',
	);
	seedUser(
		state,
		base,
		users.otherBorrower,
		'Hal Sandbox',
		'other-borrower@sandbox.example',
		'America/New_York',
	);
	issueKey(state, users.partner, 'master', 'Partner master key', keys.master).created_at =
		daysBefore(base, 300);
	issueKey(state, users.borrower, 'borrower', 'Sandbox borrower key', keys.borrower).created_at =
		daysBefore(base, 300);
	issueKey(
		state,
		users.otherBorrower,
		'borrower',
		'Sandbox second borrower key',
		keys.otherBorrower,
	).created_at = daysBefore(base, 200);
	seedReferralCodes(state, base);
	seedOffers(state, seedLenders(state, base));
	seedContracts(state, base);
	seedExtraContracts(state, base, users.borrower, options.extraContracts ?? 0);
	seedNotifications(state, base);
	seedLoanApplications(state, base);
	seedMoon(state, base, users);
	state.bringinAccounts.add('borrower@sandbox.example');
	return state;
}
