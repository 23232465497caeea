import type { IDataObject } from 'n8n-workflow';

import { describeValue } from '../../validation/checks';
import {
	agreesToTheCent,
	btcText,
	compare,
	countedCollateralSats,
	distancePercent,
	exactOf,
	hasLegacyLiquidationThreshold,
	LEGACY_LIQUIDATION_LTV,
	ltvAt,
	numberOf,
	priceAtLtv,
	rounded,
	satsToReachLtv,
	type Exact,
} from './collateralHealth';

/*
 * From a contract record (GET /api/contracts/{id}) and a price to the collateral health item. Pure:
 * what cannot be computed is a refusal ({message, description}) the operation turns into an item
 * error; nothing is guessed.
 */

/**
 * The one status whose LTV Lendasat's liquidation engine watches (model/contract.rs:469-515
 * can_be_checked_for_undercollateralization; liquidation_engine.rs:110-112 loads only those, and
 * db/contracts.rs:1628 never a contract whose liquidation_status is Liquidated): the loan is paid out and open.
 */
export const HEALTH_STATUS = 'PrincipalGiven';

/** Why a contract in another status has no collateral health, by status. */
const WHY_NO_HEALTH: Array<[statuses: string[], why: string]> = [
	[
		['Requested', 'pending', 'Approved'],
		'Its collateral has not been sent yet. To fund it, send initial_collateral_sats to its contract_address (Contract → Get shows both).',
	],
	[
		['CollateralSeen', 'CollateralConfirmed'],
		'Its collateral has arrived but the lender has not paid out the loan yet; Lendasat starts watching the LTV once it has (PrincipalGiven).',
	],
	[
		['RepaymentProvided', 'DisputeBorrowerStarted'],
		"Lendasat does not check the LTV while a repayment reported by the borrower awaits the lender, or while the borrower's dispute is open (it gives the borrower the benefit of the doubt): no margin call or liquidation comes in this status.",
	],
	[['DisputeLenderStarted'], "Lendasat does not check the LTV while the lender's dispute is open."],
	[
		['Undercollateralized', 'Defaulted', 'ClosingByLiquidation', 'ClosingByDefaulting'],
		'Its collateral is being liquidated; adding collateral no longer changes that.',
	],
	[['Extended'], 'It was replaced by the contract in its extended_by_contract; ask for that one.'],
	[
		[
			'RepaymentConfirmed',
			'ClosingByClaim',
			'Closed',
			'CollateralRecoverable',
			'ClosingByRecovery',
			'ClosedByRecovery',
			'ClosedByLiquidation',
			'ClosedByDefaulting',
			'Closing',
		],
		'The loan is repaid or closed, or its collateral is going back: there is nothing to watch.',
	],
	[['Rejected', 'Cancelled', 'RequestExpired', 'ApprovalExpired'], 'It never became a loan.'],
];

export interface Refusal {
	message: string;
	description: string;
}

export type ThresholdName = 'margin_call_1' | 'margin_call_2' | 'liquidation';

/** What a contract record says that its collateral health needs, each figure checked. */
export interface HealthFigures {
	id: string;
	status: string;
	liquidationStatus: string | null;
	collateralAsset: string | null;
	loanAsset: string | null;
	owed: Exact;
	/** The sats that count: without the origination fee. */
	collateralSats: bigint;
	originationFeeSats: bigint;
	thresholds: Array<{ name: ThresholdName; ltv: Exact }>;
	legacyLiquidationThreshold: boolean;
	initialLtv: Exact | undefined;
	liquidationPriceReported: Exact;
	contractAddress: string | null;
}

/** What a price is in, as Lendasat's engine compares it: EUR for EUR loans, USD for every other asset. */
export type PriceCurrency = 'USD' | 'EUR';

/**
 * Lendasat's engine values a EUR loan against the BitMEX EUR index and every other loan (the
 * stablecoins, and also CHF and MXN loans) against the USD index (db/contracts.rs:1620-1624,
 * bitmex_index_price_rest.rs:25-43).
 */
export function priceCurrencyOf(loanAsset: string | null): PriceCurrency {
	return loanAsset === 'Eur' ? 'EUR' : 'USD';
}

export interface HealthPrice {
	value: Exact;
	currency: PriceCurrency;
	/** When the price was Lendasat's; null for a price given in the Price field. */
	at: string | null;
	source: 'lendasat_price_history' | 'parameter';
	note: string;
}

/** The refusal of a contract that has no collateral health, or undefined when it has one. */
export function refusalOfStatus(record: IDataObject): Refusal | undefined {
	const id = String(record.id ?? '');
	const status = typeof record.status === 'string' ? record.status : undefined;
	if (status === HEALTH_STATUS) {
		return record.liquidation_status === 'Liquidated'
			? {
					message: `Contract ${id} is liquidated: it has no collateral health`,
					description: `Its liquidation_status is Liquidated: Lendasat has marked its collateral for liquidation and no longer watches its LTV; adding collateral no longer changes that. Collateral health is given only for an open loan (status ${HEALTH_STATUS}), the one status whose LTV Lendasat watches.`,
				}
			: undefined;
	}
	const why =
		WHY_NO_HEALTH.find(([statuses]) => status !== undefined && statuses.includes(status))?.[1] ??
		'Lendasat does not watch the LTV of a contract in this status.';
	return {
		message: `Contract ${id} is ${status ?? 'in no status'}: it has no collateral health`,
		description: `${why} Collateral health is given only for an open loan (status ${HEALTH_STATUS}), the one status whose LTV Lendasat watches and sends margin calls for. To check several contracts, filter Contract → Get Many by status ${HEALTH_STATUS} first.`,
	};
}

function nonNegativeSats(value: unknown): bigint | undefined {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
		? BigInt(value)
		: undefined;
}

/** An LTV ratio: more than 0 and at most 1. */
function ltvRatio(value: unknown): Exact | undefined {
	const ratio = exactOf(typeof value === 'number' ? value : undefined);
	if (!ratio) return undefined;
	return ratio.num > 0n && compare(ratio, { num: 1n, den: 1n }) <= 0 ? ratio : undefined;
}

/**
 * The figures of an open contract, each checked, or why they cannot be used. The record must be
 * one whose status has collateral health (see refusalOfStatus).
 */
export function readHealthFigures(record: IDataObject): { figures: HealthFigures } | Refusal {
	const id = String(record.id ?? '');
	const cannot = (problem: string): Refusal => ({
		message: `Lendasat's record of contract ${id} cannot give its collateral health`,
		description: `${problem} Nothing was computed: the node gives no number it cannot derive from Lendasat's own.`,
	});
	const owed = exactOf(
		typeof record.balance_outstanding === 'number' ? record.balance_outstanding : undefined,
	);
	if (!owed || owed.num < 0n) {
		return cannot(
			`Its balance_outstanding is ${describeValue(record.balance_outstanding)}, not an amount owed.`,
		);
	}
	const collateral = nonNegativeSats(record.collateral_sats);
	const fee = nonNegativeSats(record.origination_fee_sats);
	// deposited_sats is newer (commit 949a26b0); a server without it sends the total as collateral_sats.
	const hasDeposited = record.deposited_sats !== undefined && record.deposited_sats !== null;
	const deposited = hasDeposited ? nonNegativeSats(record.deposited_sats) : undefined;
	if (collateral === undefined || fee === undefined || (hasDeposited && deposited === undefined)) {
		return cannot(
			`Its collateral_sats (${describeValue(record.collateral_sats)}), deposited_sats (${describeValue(record.deposited_sats)}) and origination_fee_sats (${describeValue(record.origination_fee_sats)}) must be whole numbers of sats.`,
		);
	}
	const collateralSats = countedCollateralSats({
		collateralSats: collateral,
		depositedSats: deposited,
		originationFeeSats: fee,
	});
	if (collateralSats === 0n) {
		return {
			message: `Contract ${id} holds no collateral that counts: it has no collateral health`,
			description: `Lendasat's record shows ${collateral} sats in collateral_sats and ${deposited ?? 'no'} in deposited_sats, no more than the origination fee of ${fee} sats, so no LTV can be computed (Lendasat skips such a contract too). Check its transactions with Contract → Get.`,
		};
	}
	const createdAt = typeof record.created_at === 'string' ? Date.parse(record.created_at) : NaN;
	if (Number.isNaN(createdAt)) {
		return cannot(
			`Its created_at is ${describeValue(record.created_at)}, not a date; it decides the liquidation threshold (0.95 before 2025-03-01, the contract's ltv_threshold_liquidation since).`,
		);
	}
	const marginCall1 = ltvRatio(record.ltv_threshold_margin_call_1);
	const marginCall2 = ltvRatio(record.ltv_threshold_margin_call_2);
	const reportedLiquidation = ltvRatio(record.ltv_threshold_liquidation);
	const legacy = hasLegacyLiquidationThreshold(createdAt);
	const liquidation = legacy ? exactOf(LEGACY_LIQUIDATION_LTV) : reportedLiquidation;
	if (
		!marginCall1 ||
		!marginCall2 ||
		!liquidation ||
		!reportedLiquidation ||
		compare(marginCall1, marginCall2) >= 0 ||
		compare(marginCall2, liquidation) >= 0
	) {
		return cannot(
			`Its thresholds ltv_threshold_margin_call_1 (${describeValue(record.ltv_threshold_margin_call_1)}), ltv_threshold_margin_call_2 (${describeValue(record.ltv_threshold_margin_call_2)}) and ltv_threshold_liquidation (${describeValue(record.ltv_threshold_liquidation)}) must be LTV ratios above 0, at most 1, each above the one before${legacy ? ' (for a contract created before 2025-03-01 the liquidation threshold is 0.95)' : ''}.`,
		);
	}
	const liquidationPriceReported = exactOf(
		typeof record.liquidation_price === 'number' ? record.liquidation_price : undefined,
	);
	if (!liquidationPriceReported || liquidationPriceReported.num <= 0n) {
		return cannot(
			`Its liquidation_price is ${describeValue(record.liquidation_price)}, not a price.`,
		);
	}
	return {
		figures: {
			id,
			status: String(record.status),
			liquidationStatus:
				typeof record.liquidation_status === 'string' ? record.liquidation_status : null,
			collateralAsset: typeof record.collateral_asset === 'string' ? record.collateral_asset : null,
			loanAsset: typeof record.loan_asset === 'string' ? record.loan_asset : null,
			owed,
			collateralSats,
			originationFeeSats: fee,
			thresholds: [
				{ name: 'margin_call_1', ltv: marginCall1 },
				{ name: 'margin_call_2', ltv: marginCall2 },
				{ name: 'liquidation', ltv: liquidation },
			],
			legacyLiquidationThreshold: legacy,
			initialLtv: ltvRatio(record.initial_ltv),
			liquidationPriceReported,
			contractAddress:
				typeof record.contract_address === 'string' && record.contract_address.trim() !== ''
					? record.contract_address.trim()
					: null,
		},
	};
}

/**
 * The node's check of Lendasat's numbers: the price at the liquidation threshold must be the
 * contract's own liquidation_price to the cent. When it is not, the record's figures do not add up
 * (or Lendasat counts differently than its 0.8.2 source), and no number of the node can be trusted.
 */
export function refusalOfLiquidationPrice(figures: HealthFigures): Refusal | undefined {
	const liquidation = figures.thresholds[2];
	const computed = priceAtLtv(figures.owed, figures.collateralSats, liquidation.ltv);
	if (agreesToTheCent(computed, figures.liquidationPriceReported)) return undefined;
	return {
		message: `Lendasat's numbers for contract ${figures.id} do not add up`,
		description: `Its liquidation_price is ${numberOf(figures.liquidationPriceReported)}, but its balance_outstanding (${numberOf(figures.owed)}) over its ${figures.collateralSats} sats of collateral without the origination fee at the liquidation threshold ${rounded(liquidation.ltv, 6)}${figures.legacyLiquidationThreshold ? ' (a contract created before 2025-03-01)' : ''} gives ${rounded(computed, 2)}. Lendasat computes the liquidation price exactly so (model/contract.rs liquidation_price), so the node gives no figures rather than wrong ones. Try again in a moment (the record may have changed between two of Lendasat's reads), and otherwise tell Lendasat.`,
	};
}

/** The target LTV: the one given, or the contract's initial LTV; it must be below the liquidation threshold. */
export function targetLtvOf(
	figures: HealthFigures,
	given: Exact | undefined,
): { target: Exact; from: 'parameter' | 'initial_ltv' } | Refusal {
	const target = given ?? figures.initialLtv;
	const liquidation = figures.thresholds[2].ltv;
	if (!target) {
		return {
			message: `Contract ${figures.id} has no initial LTV to aim for`,
			description:
				'Its initial_ltv is missing or not a ratio above 0 and at most 1. Enter a Target LTV (e.g. 0.5 for 50 %).',
		};
	}
	if (compare(target, liquidation) >= 0) {
		return {
			message: `The target LTV ${rounded(target, 6)} is not below contract ${figures.id}'s liquidation threshold`,
			description: `Its liquidation threshold is ${rounded(liquidation, 6)}: a contract at that LTV is liquidated. ${given ? 'Enter a lower Target LTV' : 'Its initial_ltv is that high; enter a Target LTV below it'} (e.g. 0.5 for 50 %).`,
		};
	}
	return { target, from: given ? 'parameter' : 'initial_ltv' };
}

/** Where the collateral is sent: the address, and for on-chain collateral a BIP-21 URI with the amount. */
export interface CollateralDestination {
	address: string | null;
	/** On-chain: "bitcoin:ADDRESS?amount=BTC"; null for Arkade, without an address, or with nothing to send. */
	uri: (sats: bigint) => string | null;
}

export function destinationOf(figures: HealthFigures): CollateralDestination {
	const address = figures.contractAddress;
	const onchain = figures.collateralAsset !== 'ArkadeBtc';
	return {
		address,
		uri: (sats) =>
			address && onchain && sats > 0n ? `bitcoin:${address}?amount=${btcText(sats)}` : null,
	};
}

/** The collateral health item. */
export function healthReport(
	figures: HealthFigures,
	price: HealthPrice,
	target: { target: Exact; from: 'parameter' | 'initial_ltv' },
): IDataObject {
	const ltv = ltvAt(figures.owed, figures.collateralSats, price.value);
	const thresholds = figures.thresholds.map(({ name, ltv: thresholdLtv }) => {
		const thresholdPrice = priceAtLtv(figures.owed, figures.collateralSats, thresholdLtv);
		return {
			name,
			ltv: rounded(thresholdLtv, 6),
			price: rounded(thresholdPrice, 2),
			distance_percent: rounded(distancePercent(price.value, thresholdPrice), 2),
			reached: compare(ltv, thresholdLtv) >= 0,
		};
	});
	const reached = thresholds.filter((threshold) => threshold.reached);
	const sats = satsToReachLtv(figures.owed, figures.collateralSats, price.value, target.target);
	const destination = destinationOf(figures);
	return {
		contract_id: figures.id,
		status: figures.status,
		liquidation_status: figures.liquidationStatus,
		collateral_asset: figures.collateralAsset,
		loan_asset: figures.loanAsset,
		ltv: rounded(ltv, 6),
		zone: reached.length ? reached[reached.length - 1].name : 'healthy',
		price: {
			value: numberOf(price.value),
			currency: price.currency,
			at: price.at,
			source: price.source,
			note: price.note,
		},
		owed: numberOf(figures.owed),
		collateral_sats: Number(figures.collateralSats),
		origination_fee_sats: Number(figures.originationFeeSats),
		thresholds,
		legacy_liquidation_threshold: figures.legacyLiquidationThreshold,
		liquidation_price_reported: numberOf(figures.liquidationPriceReported),
		target_ltv: rounded(target.target, 6),
		target_ltv_from: target.from,
		sats_to_target: Number(sats),
		btc_to_target: btcText(sats),
		collateral_address: destination.address,
		payment_uri: destination.uri(sats),
	};
}
