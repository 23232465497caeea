/**
 * Loan applications (live-api §2.6; hub 0.8.2 routes/borrower/loan_applications.rs, model.rs
 * LoanApplication): the records, their store and the seed. The endpoints are in routes/loanApplications.ts.
 */
import { btcAddressFor, evmAddressFor, publicKeyFor } from './ids';
import type { SandboxState } from './state';
import type { LoanApplication } from './types';

/**
 * The npub the backend stores when a request gives none (it has a fallback of its own): the
 * NIP-19 example key, a valid bech32 npub.
 */
export const FALLBACK_NPUB = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';

/** The request fields of a new application (model.rs CreateLoanApplicationSchema). */
export type LoanApplicationDraft = Omit<
	LoanApplication,
	'loan_deal_id' | 'borrower_id' | 'status' | 'created_at' | 'updated_at' | 'borrower_npub'
> & {
	borrower_npub?: string | null;
};

/** db/loan_applications.rs insert: a new v4 id, status Available, created now. */
export function insertLoanApplication(
	state: SandboxState,
	owner: string,
	draft: LoanApplicationDraft,
	at: string = state.now().toISOString(),
	id: string = state.ids.uuid(),
): LoanApplication {
	const application: LoanApplication = {
		loan_deal_id: id,
		borrower_id: owner,
		ltv: draft.ltv,
		interest_rate: draft.interest_rate,
		loan_amount_min: draft.loan_amount_min,
		loan_amount_max: draft.loan_amount_max,
		duration_days_min: draft.duration_days_min,
		duration_days_max: draft.duration_days_max,
		borrower_loan_address: draft.borrower_loan_address ?? null,
		borrower_btc_address: draft.borrower_btc_address,
		loan_asset: draft.loan_asset,
		loan_type: draft.loan_type,
		borrower_pk: draft.borrower_pk,
		borrower_derivation_path: draft.borrower_derivation_path,
		borrower_npub: draft.borrower_npub ?? FALLBACK_NPUB,
		status: 'Available',
		client_contract_id: draft.client_contract_id ?? null,
		repayment_plan: draft.repayment_plan,
		created_at: at,
		updated_at: at,
	};
	state.loanApplications.set(id, application);
	return application;
}

/** The caller's application with this id, whatever its status; undefined for unknown and foreign ids. */
export function ownLoanApplication(
	state: SandboxState,
	owner: string,
	id: string,
): LoanApplication | undefined {
	const application = state.loanApplications.get(id);
	return application && application.borrower_id === owner ? application : undefined;
}

/**
 * db/loan_applications.rs get_all: `WHERE borrower_id = $1`, no status filter and no ORDER BY. The
 * sandbox answers in id order, which is not creation order, so that no client relies on one.
 */
export function loanApplicationsOf(state: SandboxState, owner: string): LoanApplication[] {
	return [...state.loanApplications.values()]
		.filter((application) => application.borrower_id === owner)
		.sort((a, b) =>
			a.loan_deal_id < b.loan_deal_id ? -1 : a.loan_deal_id > b.loan_deal_id ? 1 : 0,
		);
}

/** A complete draft for the admin surface and the seed: an Available UsdcPol application with the owner's look-alike keys. */
export function sampleDraft(
	state: SandboxState,
	owner: string,
	partial: Partial<LoanApplication> = {},
): LoanApplicationDraft {
	return {
		ltv: 0.5,
		interest_rate: 0.11,
		loan_amount_min: 1000,
		loan_amount_max: 5000,
		duration_days_min: 30,
		duration_days_max: 180,
		borrower_loan_address: evmAddressFor(state.seed, `${owner}:loan-address`),
		borrower_btc_address: btcAddressFor(state.seed, `${owner}:application-refund`),
		loan_asset: 'UsdcPol',
		loan_type: 'StableCoin',
		borrower_pk: publicKeyFor(state.seed, `${owner}:application`),
		borrower_derivation_path: "m/84'/1'/0'/0/0",
		client_contract_id: null,
		repayment_plan: 'bullet',
		...partial,
	};
}

/** A record as a test or demo wants it, any status (e.g. Taken or ApplicationExpired), stored for the owner. */
export function addLoanApplication(
	state: SandboxState,
	owner: string,
	partial: Partial<LoanApplication> = {},
): LoanApplication {
	if (partial.loan_deal_id !== undefined && state.loanApplications.has(partial.loan_deal_id)) {
		throw new Error(`Loan application ${partial.loan_deal_id} already exists`);
	}
	const application = insertLoanApplication(
		state,
		owner,
		sampleDraft(state, owner, partial),
		partial.created_at,
		partial.loan_deal_id,
	);
	return Object.assign(application, partial);
}
