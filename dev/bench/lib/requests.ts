/** The contract requests every contender sends, item by item. */
import type { LiveTarget } from './types';

/** Seed offer: UsdcPol, 100–10,000 USD, 7–365 days. */
export const OFFER_ID = '0ffe0000-0000-4000-8000-000000000001';
export const DURATION_DAYS = 30;

/** Every item asks for a different amount (100.00, 100.01, …), so the sandbox can tell duplicates apart. */
export function loanAmountOf(itemIndex: number): number {
	return 100 + itemIndex / 100;
}

/** `count` items from item `first` on. */
export function inputItems(count: number, first = 0): Array<{ amount: number }> {
	return Array.from({ length: count }, (_, index) => ({ amount: loanAmountOf(first + index) }));
}

export function contractRequestBody(amount: number): object {
	return { loan_id: OFFER_ID, loan_amount: amount, duration_days: DURATION_DAYS };
}

/**
 * What the live backend needs besides the offer, amount and duration (its ContractRequestSchema):
 * a checksummed Bitcoin address, a point on secp256k1, a derivation path, the loan type and, for a
 * stablecoin loan paid out directly, the address it is paid to.
 */
export const LIVE_FIELDS = {
	borrowerBtcAddress: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
	borrowerLoanAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
	borrowerPk: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
	derivationPath: "m/84'/0'/0'/0/0",
	loanType: 'StableCoin',
} as const;

/** The live dialect's body: what a hand-wired client sends to Lendasat's backend (no client_contract_id). */
export function liveContractRequestBody(live: LiveTarget, amount: number): object {
	return {
		id: live.offerId,
		loan_amount: amount,
		duration_days: DURATION_DAYS,
		borrower_btc_address: LIVE_FIELDS.borrowerBtcAddress,
		borrower_pk: LIVE_FIELDS.borrowerPk,
		borrower_derivation_path: LIVE_FIELDS.derivationPath,
		loan_type: LIVE_FIELDS.loanType,
		borrower_loan_address: LIVE_FIELDS.borrowerLoanAddress,
	};
}

/**
 * Contract → Create's lookups (GET /api/contracts) among the requests a sandbox recorded: in all,
 * and after the last contract request (the checks for another contract with the same key).
 */
export function countLooks(requests: Array<{ method: string; path: string }>): {
	all: number;
	afterLastCreate: number;
} {
	const isList = (request: { method: string; path: string }) =>
		request.method === 'GET' && request.path === '/api/contracts';
	let lastCreate = -1;
	requests.forEach((request, index) => {
		if (request.method === 'POST' && request.path === '/api/contracts') lastCreate = index;
	});
	return {
		all: requests.filter(isList).length,
		afterLastCreate: requests.slice(lastCreate + 1).filter(isList).length,
	};
}
