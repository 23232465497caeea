/*
 * Collateral health: the loan-to-value arithmetic of Lendasat's backend (hub at lendasat/iframe
 * 49781f87), on exact numbers. Pure: no n8n, no network.
 *
 * - LTV = owed / (collateral in BTC × price) (utils.rs:7-23 calculate_ltv), where owed is what the
 *   installments still ask for (installment.rs:250-265 compute_outstanding_balance: pending, paid
 *   and late ones; the API's balance_outstanding) and the collateral is what counts, the sats in
 *   the contract without the origination fee (contract.rs:107-112 actual_collateral).
 * - The price at which an LTV is reached = owed / (collateral in BTC × LTV) (utils.rs:25-37, the
 *   liquidation price at the liquidation threshold).
 * - Contracts created before 2025-03-01 are liquidated at 0.95, later ones at 0.9
 *   (contract.rs:141-153, lib.rs:47-50); the margin calls are at 0.8 and 0.85 for every contract
 *   (liquidation_engine.rs:154-185).
 *
 * The backend computes in rust_decimal (28 significant digits) and sends its results as JSON
 * numbers (rust_decimal::serde::float). Here every figure is an exact fraction of big integers: a
 * JSON number is taken as the decimal it prints as, so nothing is lost before the result is
 * rounded, once, as the output says.
 */

/** An exact rational number num / den, den > 0. */
export interface Exact {
	num: bigint;
	den: bigint;
}

export const SATS_PER_BTC = 100_000_000n;

/** Contracts created from this moment on are liquidated at the newer threshold (contract.rs:151-153). */
export const NEW_LIQUIDATION_THRESHOLD_FROM = Date.parse('2025-03-01T00:00:00Z');

/** LEGACY_LTV_THRESHOLD_LIQUIDATION (lib.rs:50). */
export const LEGACY_LIQUIDATION_LTV = '0.95';

const DECIMAL_TEXT = /^([-+]?)(\d*)(?:\.(\d*))?(?:e([-+]?\d+))?$/i;

/**
 * The exact value of a decimal: a JSON number as it prints (its shortest round-trip form, the
 * form serde_json wrote it in) or decimal text such as "98765.43". Undefined for anything else.
 */
export function exactOf(value: unknown): Exact | undefined {
	let text: string;
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) return undefined;
		text = String(value);
	} else if (typeof value === 'string') {
		text = value.trim();
	} else {
		return undefined;
	}
	const match = DECIMAL_TEXT.exec(text);
	if (!match) return undefined;
	const [, sign, whole, fraction = '', exponentText = '0'] = match;
	if (whole === '' && fraction === '') return undefined;
	const exponent = Number(exponentText) - fraction.length;
	if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) return undefined;
	const digits = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
	return exponent >= 0
		? { num: digits * 10n ** BigInt(exponent), den: 1n }
		: { num: digits, den: 10n ** BigInt(-exponent) };
}

export function exactInteger(value: bigint): Exact {
	return { num: value, den: 1n };
}

function normalised(num: bigint, den: bigint): Exact {
	if (den === 0n) throw new RangeError('division by zero');
	return den < 0n ? { num: -num, den: -den } : { num, den };
}

export function times(a: Exact, b: Exact): Exact {
	return normalised(a.num * b.num, a.den * b.den);
}

export function dividedBy(a: Exact, b: Exact): Exact {
	return normalised(a.num * b.den, a.den * b.num);
}

export function minus(a: Exact, b: Exact): Exact {
	return normalised(a.num * b.den - b.num * a.den, a.den * b.den);
}

/** -1, 0 or 1 as a is less than, equal to or more than b. */
export function compare(a: Exact, b: Exact): number {
	const difference = a.num * b.den - b.num * a.den;
	return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}

/** The smallest integer not below a. */
export function ceiling(a: Exact): bigint {
	const quotient = a.num / a.den;
	return a.num > 0n && a.num % a.den !== 0n ? quotient + 1n : quotient;
}

/** a rounded half away from zero to `decimals` places, as a JSON number (the double nearest that decimal). */
export function rounded(a: Exact, decimals: number): number {
	const scale = 10n ** BigInt(decimals);
	const magnitude = (a.num < 0n ? -a.num : a.num) * scale;
	const units = (2n * magnitude + a.den) / (2n * a.den);
	return (Number(units) / Number(scale)) * (a.num < 0n ? -1 : 1);
}

/**
 * A decimal read by exactOf as the JSON number it was (the same digits); any other fraction rounded
 * to 12 places.
 */
export function numberOf(a: Exact): number {
	const digits = a.den.toString().length - 1;
	if (a.den !== 10n ** BigInt(digits)) return rounded(a, 12);
	const magnitude = (a.num < 0n ? -a.num : a.num).toString().padStart(digits + 1, '0');
	const text = digits ? `${magnitude.slice(0, -digits)}.${magnitude.slice(-digits)}` : magnitude;
	return Number(text) * (a.num < 0n ? -1 : 1);
}

/** Whole sats as a bitcoin amount, exactly: 12345 → "0.00012345", 100000000 → "1". */
export function btcText(sats: bigint): string {
	const whole = sats / SATS_PER_BTC;
	const fraction = (sats % SATS_PER_BTC).toString().padStart(8, '0').replace(/0+$/, '');
	return fraction ? `${whole}.${fraction}` : String(whole);
}

// ---------------------------------------------------------------------------------------
// The contract's figures

/** The loan-to-value ratio at a price (calculate_ltv): owed / (collateral in BTC × price). */
export function ltvAt(owed: Exact, collateralSats: bigint, price: Exact): Exact {
	return dividedBy(
		times(owed, exactInteger(SATS_PER_BTC)),
		times(exactInteger(collateralSats), price),
	);
}

/**
 * The price at which the contract reaches an LTV: owed / (collateral in BTC × LTV). At the
 * liquidation threshold this is the contract's liquidation_price (calculate_liquidation_price).
 */
export function priceAtLtv(owed: Exact, collateralSats: bigint, ltv: Exact): Exact {
	return dividedBy(
		times(owed, exactInteger(SATS_PER_BTC)),
		times(exactInteger(collateralSats), ltv),
	);
}

/**
 * The fewest whole sats to add so that the LTV at `price` is at most `target`: the collateral must
 * reach owed / (price × target) BTC, rounded up to a sat. 0 when the LTV is at or below the target.
 */
export function satsToReachLtv(
	owed: Exact,
	collateralSats: bigint,
	price: Exact,
	target: Exact,
): bigint {
	const needed = ceiling(dividedBy(times(owed, exactInteger(SATS_PER_BTC)), times(price, target)));
	return needed > collateralSats ? needed - collateralSats : 0n;
}

/**
 * How far the price may fall before it reaches `thresholdPrice`, in percent of the price now:
 * (price − thresholdPrice) / price × 100. Negative once the threshold is passed.
 */
export function distancePercent(price: Exact, thresholdPrice: Exact): Exact {
	return dividedBy(times(minus(price, thresholdPrice), exactInteger(100n)), price);
}

/**
 * The sats that count for the LTV: those in the contract without the origination fee, never below 0
 * (contract.rs:107-112 actual_collateral). The API gives the total in one of collateral_sats and
 * deposited_sats and the total less the fee in the other: hub 0.8.2 sends the total as
 * collateral_sats and the total less the fee as deposited_sats (routes/borrower/contracts.rs:
 * 2105-2125), while the schema's field descriptions (and commit 949a26b0's message) say the
 * reverse. The larger of the two is the total either way, so the counted sats are the larger less
 * the fee.
 */
export function countedCollateralSats(figures: {
	collateralSats: bigint;
	depositedSats?: bigint;
	originationFeeSats: bigint;
}): bigint {
	const { collateralSats, depositedSats, originationFeeSats } = figures;
	const total =
		depositedSats !== undefined && depositedSats > collateralSats ? depositedSats : collateralSats;
	return total > originationFeeSats ? total - originationFeeSats : 0n;
}

/** Whether the contract is liquidated at the legacy threshold: created before 2025-03-01. */
export function hasLegacyLiquidationThreshold(createdAt: number): boolean {
	return createdAt < NEW_LIQUIDATION_THRESHOLD_FROM;
}

/**
 * Whether a price the node computed agrees with one Lendasat reported "to the cent": they differ
 * by less than one cent. Lendasat sends its liquidation price unrounded; a server that rounds it to
 * cents is still within half a cent.
 */
export function agreesToTheCent(computed: Exact, reported: Exact): boolean {
	const difference = minus(computed, reported);
	const magnitude = {
		num: difference.num < 0n ? -difference.num : difference.num,
		den: difference.den,
	};
	return compare(magnitude, { num: 1n, den: 100n }) < 0;
}
