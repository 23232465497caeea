/** The contract requests every contender sends, item by item. */

/** Seed offer: UsdcPol, 100–10,000 USD, 7–365 days. */
export const OFFER_ID = '0ffe0000-0000-4000-8000-000000000001';
export const DURATION_DAYS = 30;

/** Every item asks for a different amount (100.00, 100.01, …), so the sandbox can tell duplicates apart. */
export function loanAmountOf(itemIndex: number): number {
	return 100 + itemIndex / 100;
}

export function inputItems(count: number): Array<{ amount: number }> {
	return Array.from({ length: count }, (_, index) => ({ amount: loanAmountOf(index) }));
}

export function contractRequestBody(amount: number): object {
	return { loan_id: OFFER_ID, loan_amount: amount, duration_days: DURATION_DAYS };
}
