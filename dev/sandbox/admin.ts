/**
 * The admin surface for tests and demos: programmatic functions (`sandbox.admin.*`) and the same
 * operations over HTTP under /__admin (no API key, JSON in and out, spec-style error bodies).
 */
import { testnetAddressFor } from './bitcoin';
import { ApiError, shorten } from './errors';
import { evmAddressFor, publicKeyFor } from './ids';
import { addLoanApplication } from './loanApplications';
import { arkAdmin, arkAdminRoutes, type ArkAdmin } from './ark';
import { collateralAdmin, collateralAdminRoutes, type CollateralAdmin } from './collateral';
import { disputeAdmin, disputeAdminRoutes, type DisputeAdmin } from './disputes';
import { lifecycleAdmin, lifecycleAdminRoutes, type LifecycleAdmin } from './lifecycle';
import { createContractEntry } from './loans';
import { registerApiAccount } from './routes/accounts';
import { moonAdmin, type MoonAdmin } from './moon';
import { emptyReply, jsonReply, type Reply, type RequestContext, type Route } from './router';
import {
	changeLiquidationStatus,
	changeStatus,
	giveBackOfferCapacity,
	nowIso,
	pushNotification,
	recordStatus,
	userOfKey,
	type SandboxState,
} from './state';
import type {
	ClientLocation,
	Contract,
	ContractEntry,
	Installment,
	LoanApplication,
	LoanOffer,
	NotificationData,
	NotificationMessage,
	OfferSettings,
	RecordedRequest,
	SandboxConfig,
	SandboxKeys,
	SandboxStats,
	User,
} from './types';
import { isPositiveInteger, type JsonObject } from './validate';

export interface AdminHost {
	state(): SandboxState;
	currentConfig(): SandboxConfig;
	configure(patch: Partial<SandboxConfig>): void;
	reset(): void;
	stats(): SandboxStats;
	/** Counters back to zero (the peaks start at what is open now); the state stays. */
	clearStats(): void;
	requests(): RecordedRequest[];
	keys: SandboxKeys;
}

export interface NotificationInput {
	type?: string;
	data?: Partial<NotificationData>;
}

/** Options of postNotifications: `count` notifications for one user, a minute apart, newest last. */
export interface NotificationBatchInput {
	/** Types to cycle through. Default: ContractUpdate, InstallmentUpdate, ChatMessage (mixed). */
	types?: string[];
	/** Default false (unread). */
	read?: boolean;
	/** Timestamp of the newest one (default: now); the others are 1 minute apart before it. */
	newest?: string;
	/** Contract the notifications refer to (default: the owner's first contract, if any). */
	contract_id?: string;
}

/** An offer to add, plus the settings the live backend does not publish (`auto_accept`). */
export type AdminOfferInput = Partial<LoanOffer> & OfferSettings;

/** Contract fields to override; `loan_id` picks the offer (default: the first available offer). */
export type AdminContractInput = Partial<Contract>;

/** A borrower account a partner made, its key and the contracts given to it (see onboardBorrowers). */
export interface OnboardedBorrower {
	/** The account's user id: the partner's own reference in the tests, the demo and the benchmark. */
	id: string;
	name: string;
	/** The borrower's key, as Account → Create returned it. */
	api_key: string;
	/** The contracts given to it, in the order asked. */
	contracts: string[];
}

/** The name, e-mail and time zone of a partner's `index`-th borrower (0-based), as onboarding gives them. */
export function onboardedAccount(index: number): {
	name: string;
	email: string;
	timezone: string;
} {
	return {
		name: `Borrower ${index + 1}`,
		email: `borrower-${index + 1}@partner.example`,
		timezone: 'Europe/Vienna',
	};
}

/** Installment fields to change: `due_date` (any ISO timestamp, stored as UTC) and `status` (any text). */
export interface InstallmentPatch {
	due_date?: string;
	status?: string;
}

export interface SandboxAdmin
	extends LifecycleAdmin,
		ArkAdmin,
		MoonAdmin,
		DisputeAdmin,
		CollateralAdmin {
	setContractStatus(id: string, status: string): Contract;
	setLiquidationStatus(id: string, liquidationStatus: string): Contract;
	addOffer(partial?: AdminOfferInput): LoanOffer;
	withdrawOffer(id: string): LoanOffer;
	postNotification(ownerKey: string, notification?: NotificationInput): NotificationMessage;
	/** Many notifications at once, e.g. 160 unread ones of mixed types. */
	postNotifications(
		ownerKey: string,
		count: number,
		options?: NotificationBatchInput,
	): NotificationMessage[];
	createContract(ownerKey: string, partial?: AdminContractInput): Contract;
	createContracts(ownerKey: string, count: number, partial?: AdminContractInput): Contract[];
	/** Moves an installment's due date and/or sets its status (e.g. due tomorrow, or `late`). */
	setInstallment(contractId: string, installmentId: string, patch: InstallmentPatch): Installment;
	/**
	 * The backend's late-installments job (every 30 min, late_installments.rs): in PrincipalGiven
	 * contracts, pending installments whose due date has passed become `late`. Returns how many.
	 */
	markLateInstallments(): number;
	/** A loan application of the key's user with these fields (any status), the rest made up. */
	addLoanApplication(ownerKey: string, partial?: Partial<LoanApplication>): LoanApplication;
	/** Jails (or frees) the key's user: the live backend then answers 400 "Invalid request" to some requests. */
	setJailed(ownerKey: string, jailed: boolean): void;
	/**
	 * Benchmark setup only: `count` borrower accounts of the master key's partner, stored as POST
	 * /api/create-api-account stores them, each given one contract per entry of `contracts`, in one
	 * call instead of a request each (50,000 borrowers in seconds, not minutes). Nothing is checked
	 * that the API route would check: tests that onboard borrowers use the API (sandbox/partner.ts).
	 */
	onboardBorrowers(
		masterKey: string,
		count: number,
		contracts?: AdminContractInput[],
	): OnboardedBorrower[];
	configure(patch: Partial<SandboxConfig>): SandboxConfig;
	reset(): void;
	stats(): SandboxStats;
	/** Recorded requests with the x-api-key value replaced by '<redacted>'. */
	requests(): RecordedRequest[];
}

function notFound(what: string, id: string): ApiError {
	return new ApiError(404, 'NOT_FOUND', `${what} ${shorten(id)} not found`);
}

function invalid(details: string): ApiError {
	return new ApiError(400, 'INVALID_BODY', details);
}

function anyContract(state: SandboxState, id: string): ContractEntry {
	const entry = state.contracts.get(id);
	if (!entry) throw notFound('Contract', id);
	return entry;
}

function ownerOfKey(state: SandboxState, apiKey: string): User {
	const user = typeof apiKey === 'string' ? userOfKey(state, apiKey) : undefined;
	if (!user) throw notFound('API key', '<given key>');
	return user;
}

function requireText(value: unknown, field: string): string {
	if (typeof value === 'string' && value !== '') return value;
	throw invalid(`Field ${field} must be a non-empty string`);
}

function offerFromPartial(state: SandboxState, input: AdminOfferInput): LoanOffer {
	const partial: Partial<LoanOffer> & OfferSettings = { ...input };
	delete partial.auto_accept;
	delete partial.btc_loan_repayment_address;
	const id = partial.id ?? state.ids.uuid();
	if (state.offers.has(id)) throw invalid(`Offer ${id} already exists`);
	const lender = [...state.lenders.values()][0];
	return {
		id,
		name: `Sandbox offer ${state.offers.size + 1}`,
		lender: { ...lender },
		min_ltv: 0.5,
		interest_rate: 0.12,
		loan_amount_min: 100,
		loan_amount_max: 10000,
		duration_days_min: 7,
		duration_days_max: 365,
		loan_asset: 'UsdcPol',
		loan_payout: 'Direct',
		status: 'Available',
		loan_repayment_address: evmAddressFor(state.seed, `${id}:repay`),
		origination_fee: [{ fee: 0.01, from_day: 0, to_day: 100000 }],
		kyc_link: null,
		lender_pk: publicKeyFor('lendasat-sandbox-lenders', lender.id),
		repayment_plan: 'bullet',
		collateral_asset: 'BitcoinBtc',
		...partial,
	};
}

function offerForContract(state: SandboxState, offerId: string | undefined): LoanOffer {
	if (offerId !== undefined) {
		const offer = state.offers.get(offerId);
		if (!offer) throw notFound('Offer', offerId);
		return offer;
	}
	const first = [...state.offers.values()].find((offer) => offer.status === 'Available');
	if (!first) throw invalid('No available offer to base the contract on');
	return first;
}

function adminContract(
	state: SandboxState,
	ownerKey: string,
	partial: AdminContractInput,
): Contract {
	const owner = ownerOfKey(state, ownerKey);
	const offer = offerForContract(state, partial.loan_id);
	if (partial.id !== undefined && state.contracts.has(partial.id))
		throw invalid(`Contract ${partial.id} already exists`);
	const createdAt = partial.created_at ?? nowIso(state);
	const entry = createContractEntry(state, {
		id: partial.id,
		offer,
		owner: owner.id,
		loanAmount: partial.loan_amount ?? offer.loan_amount_min,
		durationDays: partial.duration_days ?? offer.duration_days_min,
		status: 'Requested',
		createdAt,
	});
	if (partial.status !== undefined && partial.status !== 'Requested') {
		recordStatus(state, entry.contract, partial.status, createdAt);
	}
	return Object.assign(entry.contract, partial);
}

/**
 * Statuses whose backend path gives a live request's amount back to its offer: the borrower's cancel,
 * the lender's reject (routes/lender/contracts.rs), and the approval- and request-expiry jobs; the
 * request-expiry job then marks the offer Unavailable ("expired due to inactivity").
 */
const RELEASING_STATUSES = new Set(['Cancelled', 'Rejected', 'ApprovalExpired', 'RequestExpired']);

function setContractStatus(state: SandboxState, id: string, status: string): Contract {
	const entry = anyContract(state, id);
	const contract = changeStatus(state, entry, requireText(status, 'status'));
	if (RELEASING_STATUSES.has(status) && entry.holdsOfferCapacity) {
		giveBackOfferCapacity(state, entry);
		const offer = state.offers.get(contract.loan_id);
		if (offer && status === 'RequestExpired') offer.status = 'Unavailable';
	}
	return contract;
}

/**
 * Installments live in their own table in the backend, so changing one leaves the contract's
 * updated_at alone [INF]; nothing is notified either.
 */
function setInstallment(
	state: SandboxState,
	contractId: string,
	installmentId: string,
	patch: InstallmentPatch,
): Installment {
	const { contract } = anyContract(state, contractId);
	const installment = contract.installments.find((candidate) => candidate.id === installmentId);
	if (!installment) throw notFound('Installment', installmentId);
	if (patch.due_date !== undefined) {
		const due = typeof patch.due_date === 'string' ? Date.parse(patch.due_date) : Number.NaN;
		if (Number.isNaN(due)) throw invalid('due_date must be an ISO timestamp');
		installment.due_date = new Date(due).toISOString();
	}
	if (patch.status !== undefined) installment.status = requireText(patch.status, 'status');
	return installment;
}

/** db/installments.rs mark_late: `status = 'late'` for pending installments due before now, PrincipalGiven contracts only. */
function markLateInstallments(state: SandboxState): number {
	const now = state.now().getTime();
	let marked = 0;
	for (const { contract } of state.contracts.values()) {
		if (contract.status !== 'PrincipalGiven') continue;
		for (const installment of contract.installments) {
			if (installment.status === 'pending' && Date.parse(installment.due_date) < now) {
				installment.status = 'late';
				marked += 1;
			}
		}
	}
	return marked;
}

const MIXED_TYPES = ['ContractUpdate', 'InstallmentUpdate', 'ChatMessage'];

function postNotifications(
	state: SandboxState,
	ownerKey: string,
	count: number,
	options: NotificationBatchInput,
): NotificationMessage[] {
	const owner = ownerOfKey(state, ownerKey);
	if (!isPositiveInteger(count)) throw invalid('count must be a positive integer');
	const types = options.types && options.types.length > 0 ? options.types : MIXED_TYPES;
	const newest = Date.parse(options.newest ?? nowIso(state));
	if (Number.isNaN(newest)) throw invalid('newest must be an ISO timestamp');
	const contract = options.contract_id
		? anyContract(state, options.contract_id).contract
		: state.contractsByOwner.get(owner.id)?.[0]?.contract;
	const messages: NotificationMessage[] = [];
	for (let index = 0; index < count; index += 1) {
		const type = types[index % types.length];
		const timestamp = new Date(newest - (count - 1 - index) * 60_000).toISOString();
		const data: NotificationData = {
			id: state.ids.uuid(),
			timestamp,
			read: options.read ?? false,
			contract_id: contract?.id ?? state.ids.uuid(),
		};
		if (type === 'ContractUpdate') data.status = contract?.status ?? 'Requested';
		if (type === 'InstallmentUpdate') {
			data.installment_id = contract?.installments[0]?.id ?? state.ids.uuid();
			data.status = 'paid';
		}
		if (type === 'ChatMessage') data.counterparty_name = contract?.lender.name ?? 'Sandbox lender';
		messages.push(pushNotification(state, owner.id, { type, data }));
	}
	return messages;
}

function onboardBorrowers(
	state: SandboxState,
	masterKey: string,
	count: number,
	contracts: AdminContractInput[],
): OnboardedBorrower[] {
	const partner = ownerOfKey(state, masterKey);
	if (state.keys.get(masterKey)?.kind !== 'master')
		throw invalid('master_key must be a master key');
	if (!isPositiveInteger(count)) throw invalid('count must be a positive integer');
	if (!Array.isArray(contracts)) throw invalid('contracts must be a list');
	return Array.from({ length: count }, (_, index) => {
		const account = registerApiAccount(state, partner.id, onboardedAccount(index));
		const ids = contracts.map(
			(contract) => adminContract(state, account.api_key, { ...contract }).id,
		);
		return { id: account.id, name: account.name, api_key: account.api_key, contracts: ids };
	});
}

export function createAdmin(host: AdminHost): SandboxAdmin {
	const state = (): SandboxState => host.state();
	return {
		...lifecycleAdmin(state),
		...collateralAdmin(state),
		...arkAdmin(state),
		...moonAdmin(state),
		...disputeAdmin(state),
		setContractStatus: (id, status) => setContractStatus(state(), id, status),
		setLiquidationStatus: (id, liquidationStatus) =>
			changeLiquidationStatus(
				state(),
				anyContract(state(), id),
				requireText(liquidationStatus, 'liquidation_status'),
			),
		addOffer: (partial = {}) => {
			const offer = offerFromPartial(state(), partial);
			state().offers.set(offer.id, offer);
			if (partial.auto_accept) state().autoAcceptOffers.add(offer.id);
			const btcAddress =
				partial.btc_loan_repayment_address === undefined
					? testnetAddressFor(`${state().seed}:${offer.id}:btc-repay`)
					: partial.btc_loan_repayment_address;
			if (btcAddress) state().offerBtcRepaymentAddresses.set(offer.id, btcAddress);
			return offer;
		},
		withdrawOffer: (id) => {
			const offer = state().offers.get(id);
			if (!offer) throw notFound('Offer', id);
			offer.status = 'Unavailable';
			return offer;
		},
		postNotification: (ownerKey, notification = {}) => {
			const owner = ownerOfKey(state(), ownerKey);
			const data: NotificationData = {
				id: state().ids.uuid(),
				timestamp: nowIso(state()),
				read: false,
				...notification.data,
			};
			return pushNotification(state(), owner.id, {
				type: notification.type ?? 'ContractUpdate',
				data,
			});
		},
		postNotifications: (ownerKey, count, options = {}) =>
			postNotifications(state(), ownerKey, count, options),
		createContract: (ownerKey, partial = {}) => adminContract(state(), ownerKey, partial),
		createContracts: (ownerKey, count, partial = {}) => {
			if (!isPositiveInteger(count)) throw invalid('count must be a positive integer');
			return Array.from({ length: count }, () => adminContract(state(), ownerKey, partial));
		},
		setInstallment: (contractId, installmentId, patch) =>
			setInstallment(state(), contractId, installmentId, patch),
		markLateInstallments: () => markLateInstallments(state()),
		addLoanApplication: (ownerKey, partial = {}) => {
			const owner = ownerOfKey(state(), ownerKey);
			if (
				partial.loan_deal_id !== undefined &&
				state().loanApplications.has(partial.loan_deal_id)
			) {
				throw invalid(`Loan application ${partial.loan_deal_id} already exists`);
			}
			return addLoanApplication(state(), owner.id, partial);
		},
		setJailed: (ownerKey, jailed) => {
			const owner = ownerOfKey(state(), ownerKey);
			if (jailed) state().jailedUsers.add(owner.id);
			else state().jailedUsers.delete(owner.id);
		},
		onboardBorrowers: (masterKey, count, contracts = []) =>
			onboardBorrowers(state(), masterKey, count, contracts),
		configure: (patch) => {
			host.configure(patch);
			return host.currentConfig();
		},
		reset: () => host.reset(),
		stats: () => host.stats(),
		requests: () =>
			host
				.requests()
				.map((request) =>
					request.headers['x-api-key'] === undefined
						? { ...request }
						: { ...request, headers: { ...request.headers, 'x-api-key': '<redacted>' } },
				),
	};
}

function bodyObject(ctx: RequestContext): JsonObject {
	const { body } = ctx;
	if (body === undefined || body === null) return {};
	if (typeof body === 'object' && !Array.isArray(body)) return body as JsonObject;
	throw invalid('The request body must be a JSON object');
}

function createContractsOverHttp(admin: SandboxAdmin, ctx: RequestContext): Reply {
	const { api_key: apiKey, count, ...partial } = bodyObject(ctx);
	const key = requireText(apiKey, 'api_key');
	if (count === undefined)
		return jsonReply(admin.createContract(key, partial as AdminContractInput));
	const created = admin.createContracts(key, count as number, partial as AdminContractInput);
	return jsonReply({
		created: created.length,
		first_id: created[0].id,
		last_id: created[created.length - 1].id,
	});
}

/** The /__admin routes (served without API key, faults, rate limit, latency or recording). */
export function adminRoutes(admin: SandboxAdmin, host: AdminHost): Route[] {
	const route = (method: string, pattern: string, handle: Route['handle']): Route => ({
		method,
		pattern: `/__admin${pattern}`,
		auth: 'none',
		body: method === 'GET' || method === 'DELETE' ? 'none' : 'json',
		handle,
	});
	const noBody = (method: string, pattern: string, handle: Route['handle']): Route => ({
		...route(method, pattern, handle),
		body: 'none',
	});
	return [
		route('GET', '/keys', () => jsonReply(host.keys)),
		route('GET', '/config', () => jsonReply(host.currentConfig())),
		route('PUT', '/config', (ctx) =>
			jsonReply(admin.configure(bodyObject(ctx) as Partial<SandboxConfig>)),
		),
		route('POST', '/config', (ctx) =>
			jsonReply(admin.configure(bodyObject(ctx) as Partial<SandboxConfig>)),
		),
		noBody('POST', '/reset', () => {
			admin.reset();
			return jsonReply({ ok: true });
		}),
		route('GET', '/stats', () => jsonReply(admin.stats())),
		noBody('POST', '/stats/clear', () => {
			host.clearStats();
			return jsonReply(admin.stats());
		}),
		route('GET', '/requests', () => jsonReply(admin.requests())),
		route('POST', '/contracts', (ctx) => createContractsOverHttp(admin, ctx)),
		route('POST', '/contracts/:id/status', (ctx) =>
			jsonReply(admin.setContractStatus(ctx.params.id, bodyObject(ctx).status as string)),
		),
		route('POST', '/contracts/:id/liquidation-status', (ctx) =>
			jsonReply(
				admin.setLiquidationStatus(ctx.params.id, bodyObject(ctx).liquidation_status as string),
			),
		),
		route('POST', '/contracts/:id/installments/:installmentId', (ctx) =>
			jsonReply(
				admin.setInstallment(
					ctx.params.id,
					ctx.params.installmentId,
					bodyObject(ctx) as InstallmentPatch,
				),
			),
		),
		noBody('POST', '/jobs/late-installments', () =>
			jsonReply({ marked: admin.markLateInstallments() }),
		),
		route('POST', '/offers', (ctx) =>
			jsonReply(admin.addOffer(bodyObject(ctx) as AdminOfferInput)),
		),
		noBody('POST', '/offers/:id/withdraw', (ctx) => jsonReply(admin.withdrawOffer(ctx.params.id))),
		route('DELETE', '/offers/:id', (ctx) => {
			admin.withdrawOffer(ctx.params.id);
			return emptyReply();
		}),
		route('POST', '/loan-applications', (ctx) => {
			const { api_key: apiKey, ...partial } = bodyObject(ctx);
			return jsonReply(
				admin.addLoanApplication(
					requireText(apiKey, 'api_key'),
					partial as Partial<LoanApplication>,
				),
			);
		}),
		route('POST', '/borrowers', (ctx) => {
			const { master_key: masterKey, count, contracts } = bodyObject(ctx);
			return jsonReply(
				admin.onboardBorrowers(
					requireText(masterKey, 'master_key'),
					count as number,
					(contracts ?? []) as AdminContractInput[],
				),
			);
		}),
		route('POST', '/jail', (ctx) => {
			const { api_key: apiKey, jailed } = bodyObject(ctx);
			admin.setJailed(requireText(apiKey, 'api_key'), jailed !== false);
			return jsonReply({ jailed: jailed !== false });
		}),
		route('POST', '/notifications', (ctx) => {
			const { api_key: apiKey, count, ...notification } = bodyObject(ctx);
			const key = requireText(apiKey, 'api_key');
			if (count === undefined)
				return jsonReply(admin.postNotification(key, notification as NotificationInput));
			const posted = admin.postNotifications(
				key,
				count as number,
				notification as NotificationBatchInput,
			);
			return jsonReply({
				created: posted.length,
				first_id: posted[0].data.id,
				last_id: posted[posted.length - 1].data.id,
			});
		}),
		route('POST', '/moon/invoices/:id/pay', (ctx) =>
			jsonReply(admin.payMoonInvoice(ctx.params.id)),
		),
		route('POST', '/client-location', (ctx) => {
			const { location } = bodyObject(ctx);
			admin.setClientLocation(location as ClientLocation);
			return jsonReply({ location });
		}),
		route('POST', '/bringin/confirm', (ctx) => {
			admin.confirmBringin(requireText(bodyObject(ctx).api_key, 'api_key'));
			return jsonReply({ has_key: true });
		}),
		...lifecycleAdminRoutes(admin),
		...collateralAdminRoutes(admin),
		...arkAdminRoutes(admin),
		...disputeAdminRoutes(admin),
	];
}
