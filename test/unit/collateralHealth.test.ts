import type { IDataObject } from 'n8n-workflow';

import { liquidationPriceOf } from '../../dev/sandbox/loans';
import type { Contract } from '../../dev/sandbox/types';
import {
	agreesToTheCent,
	btcText,
	ceiling,
	countedCollateralSats,
	exactOf,
	hasLegacyLiquidationThreshold,
	ltvAt,
	numberOf,
	priceAtLtv,
	rounded,
	satsToReachLtv,
	compare,
	type Exact,
} from '../../nodes/LendasatBorrower/resources/contract/collateralHealth';
import {
	healthReport,
	readHealthFigures,
	refusalOfLiquidationPrice,
	refusalOfStatus,
	targetLtvOf,
	type HealthFigures,
} from '../../nodes/LendasatBorrower/resources/contract/healthReport';
import { seededRandom } from '../helpers/seededRandom';

/*
 * The collateral-health arithmetic against the backend's own numbers: hub's unit tests
 * (utils.rs:186-230), its liquidation_price as the sandbox reproduces it in plain doubles
 * (dev/sandbox/loans.ts, model/contract.rs:117-139), and the round trip of sats_to_target.
 */

const exact = (value: number | string): Exact => {
	const parsed = exactOf(value);
	if (!parsed) throw new Error(`not a decimal: ${value}`);
	return parsed;
};

describe('exact decimals', () => {
	it.each([
		['98765.43', 9876543n, 100n],
		[0.1, 1n, 10n],
		[1e-7, 1n, 10_000_000n],
		[1.5e21, 1_500_000_000_000_000_000_000n, 1n],
		['-0.5', -5n, 10n],
		['.25', 25n, 100n],
	])('reads %p exactly', (value, num, den) => {
		expect(exactOf(value)).toEqual({ num, den });
	});

	it.each([['abc'], [''], ['1,5'], [Number.NaN], [Infinity], [null], [{}]])(
		'refuses %p',
		(value) => {
			expect(exactOf(value)).toBeUndefined();
		},
	);

	it('gives back the JSON number it read, and rounds half away from zero', () => {
		expect(numberOf(exact(55141.189976428715))).toBe(55141.189976428715);
		expect(numberOf(exact('0.00012345'))).toBe(0.00012345);
		expect(rounded(exact('2.345'), 2)).toBe(2.35);
		expect(rounded(exact('-2.345'), 2)).toBe(-2.35);
		expect(rounded({ num: 1n, den: 3n }, 6)).toBe(0.333333);
		expect(ceiling({ num: 7n, den: 2n })).toBe(4n);
		expect(ceiling({ num: 8n, den: 2n })).toBe(4n);
	});

	it('writes sats as bitcoin exactly', () => {
		expect(btcText(12_345n)).toBe('0.00012345');
		expect(btcText(100_000_000n)).toBe('1');
		expect(btcText(150_000_000n)).toBe('1.5');
		expect(btcText(0n)).toBe('0');
	});
});

describe("the backend's liquidation price", () => {
	it("gives hub's own test values: 50,000 over 1 BTC is 55,555.56 at 0.9 and 52,631.58 at 0.95, where the LTV is the threshold", () => {
		const owed = exact(50_000);
		const price = priceAtLtv(owed, 100_000_000n, exact('0.9'));
		expect(rounded(price, 5)).toBe(55_555.55556);
		expect(compare(ltvAt(owed, 100_000_000n, price), exact('0.9'))).toBe(0);
		const legacy = priceAtLtv(owed, 100_000_000n, exact('0.95'));
		expect(rounded(legacy, 6)).toBe(52_631.578947);
		expect(compare(ltvAt(owed, 100_000_000n, legacy), exact('0.95'))).toBe(0);
	});

	it('agrees to the cent with the liquidation_price the backend computes, for new and legacy contracts alike', () => {
		const random = seededRandom(26);
		for (let index = 0; index < 200; index += 1) {
			const legacy = index % 2 === 1;
			const fee = Math.floor(random() * 100_000);
			const deposited = fee + 10_000 + Math.floor(random() * 500_000_000);
			const owed = Math.round(random() * 50_000_000) / 100;
			const contract = {
				created_at: legacy ? '2024-11-02T08:00:00Z' : '2025-06-30T12:00:00Z',
				deposited_sats: deposited,
				origination_fee_sats: fee,
				initial_collateral_sats: deposited,
				installments: [
					{ principal: owed, interest: 0, status: 'pending' },
					{ principal: 5, interest: 1, status: 'confirmed' },
				],
			} as unknown as Contract;
			const reported = liquidationPriceOf(contract);
			const record = apiRecord({
				created_at: contract.created_at,
				balance_outstanding: owed,
				collateral_sats: deposited,
				deposited_sats: deposited - fee,
				origination_fee_sats: fee,
				liquidation_price: reported,
			});
			const read = readHealthFigures(record);
			if (!('figures' in read)) throw new Error(read.description);
			expect(read.figures.legacyLiquidationThreshold).toBe(legacy);
			expect(refusalOfLiquidationPrice(read.figures)).toBeUndefined();
			const computed = priceAtLtv(
				read.figures.owed,
				read.figures.collateralSats,
				read.figures.thresholds[2].ltv,
			);
			expect(Math.abs(rounded(computed, 2) - reported)).toBeLessThanOrEqual(0.005 + 1e-9);
		}
	});

	it('tells a contract created before 2025-03-01 from one created on that day', () => {
		expect(hasLegacyLiquidationThreshold(Date.parse('2025-02-28T23:59:59.999Z'))).toBe(true);
		expect(hasLegacyLiquidationThreshold(Date.parse('2025-03-01T00:00:00Z'))).toBe(false);
	});

	it('counts a difference of one cent as not agreeing, and half a cent as agreeing', () => {
		expect(agreesToTheCent(exact('100.004'), exact('100'))).toBe(true);
		expect(agreesToTheCent(exact('100.005'), exact('100'))).toBe(true);
		expect(agreesToTheCent(exact('100.01'), exact('100'))).toBe(false);
		expect(agreesToTheCent(exact('99.99'), exact('100'))).toBe(false);
	});
});

describe('the collateral that counts', () => {
	it('is the total less the fee, whichever of collateral_sats and deposited_sats holds the total', () => {
		// hub 0.8.2's code: collateral_sats is the total, deposited_sats the total less the fee.
		expect(
			countedCollateralSats({
				collateralSats: 1_000_000n,
				depositedSats: 990_000n,
				originationFeeSats: 10_000n,
			}),
		).toBe(990_000n);
		// The schema's descriptions: the other way round.
		expect(
			countedCollateralSats({
				collateralSats: 990_000n,
				depositedSats: 1_000_000n,
				originationFeeSats: 10_000n,
			}),
		).toBe(990_000n);
		// Before deposited_sats existed.
		expect(countedCollateralSats({ collateralSats: 1_000_000n, originationFeeSats: 10_000n })).toBe(
			990_000n,
		);
		// Underfunded: no more than the fee counts as nothing.
		expect(
			countedCollateralSats({
				collateralSats: 8_000n,
				depositedSats: 8_000n,
				originationFeeSats: 10_000n,
			}),
		).toBe(0n);
	});
});

describe('sats to the target LTV', () => {
	it('are the fewest whole sats after which the LTV is at most the target: one sat less is not enough', () => {
		const random = seededRandom(2026);
		let checked = 0;
		for (let index = 0; index < 500; index += 1) {
			const owed = exact((Math.round(random() * 10_000_000) + 1) / 100);
			const sats = BigInt(1 + Math.floor(random() * 300_000_000));
			const price = exact((Math.round(random() * 15_000_000) + 1_000_000) / 100);
			const target = exact((Math.round(random() * 800) + 50) / 1000);
			const toSend = satsToReachLtv(owed, sats, price, target);
			if (compare(ltvAt(owed, sats, price), target) <= 0) {
				expect(toSend).toBe(0n);
				continue;
			}
			checked += 1;
			expect(toSend).toBeGreaterThan(0n);
			expect(compare(ltvAt(owed, sats + toSend, price), target)).toBeLessThanOrEqual(0);
			expect(compare(ltvAt(owed, sats + toSend - 1n, price), target)).toBe(1);
		}
		expect(checked).toBeGreaterThan(100);
	});

	it('reaches a target met exactly without a spare sat', () => {
		// 500 owed over 0.01 BTC at 100,000 is an LTV of 0.5 exactly.
		expect(satsToReachLtv(exact(500), 1_000_000n, exact(100_000), exact('0.5'))).toBe(0n);
		expect(satsToReachLtv(exact(500), 999_999n, exact(100_000), exact('0.5'))).toBe(1n);
	});
});

/** A PrincipalGiven contract as GET /api/contracts/{id} gives it, with these fields changed. */
function apiRecord(fields: Record<string, unknown> = {}): IDataObject {
	const record: IDataObject = {
		id: 'c0000000-0000-4000-8000-000000000099',
		status: 'PrincipalGiven',
		liquidation_status: 'Healthy',
		collateral_asset: 'BitcoinBtc',
		loan_asset: 'UsdcPol',
		created_at: '2025-06-30T12:00:00Z',
		balance_outstanding: 1000,
		collateral_sats: 2_010_000,
		deposited_sats: 2_000_000,
		origination_fee_sats: 10_000,
		initial_ltv: 0.5,
		ltv_threshold_margin_call_1: 0.8,
		ltv_threshold_margin_call_2: 0.85,
		ltv_threshold_liquidation: 0.9,
		contract_address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx',
		...fields,
	};
	if (!('liquidation_price' in fields)) {
		record.liquidation_price =
			Number(record.balance_outstanding) /
			(((Number(record.collateral_sats) - Number(record.origination_fee_sats)) / 1e8) * 0.9);
	}
	return record;
}

function figuresOf(fields: Record<string, unknown> = {}): HealthFigures {
	const read = readHealthFigures(apiRecord(fields));
	if (!('figures' in read)) throw new Error(read.description);
	return read.figures;
}

describe('the health item', () => {
	it('gives each threshold its price and distance, the zone, and a bitcoin: URI for what to send', () => {
		// 1000 owed over 0.02 BTC: an LTV of 0.5 at 100,000, of 0.8 at 62,500.
		const figures = figuresOf();
		const target = targetLtvOf(figures, undefined);
		if (!('target' in target)) throw new Error(target.description);
		const report = healthReport(
			figures,
			{ value: exact(60_000), currency: 'USD', at: null, source: 'parameter', note: '' },
			target,
		);
		expect(report).toMatchObject({
			ltv: 0.833333,
			zone: 'margin_call_1',
			owed: 1000,
			collateral_sats: 2_000_000,
			target_ltv: 0.5,
			target_ltv_from: 'initial_ltv',
			// 1000 / (60,000 × 0.5) = 0.03333334 BTC (rounded up), 1,333,334 sats more than 0.02.
			sats_to_target: 1_333_334,
			btc_to_target: '0.01333334',
			payment_uri: 'bitcoin:tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx?amount=0.01333334',
		});
		expect(report.thresholds).toEqual([
			{ name: 'margin_call_1', ltv: 0.8, price: 62_500, distance_percent: -4.17, reached: true },
			{
				name: 'margin_call_2',
				ltv: 0.85,
				price: 58_823.53,
				distance_percent: 1.96,
				reached: false,
			},
			{ name: 'liquidation', ltv: 0.9, price: 55_555.56, distance_percent: 7.41, reached: false },
		]);
	});

	it('gives an Arkade contract no URI, and a contract at its target nothing to send', () => {
		const figures = figuresOf({ collateral_asset: 'ArkadeBtc', contract_address: 'tark1…' });
		const report = healthReport(
			figures,
			{ value: exact(60_000), currency: 'USD', at: null, source: 'parameter', note: '' },
			{ target: exact('0.9'), from: 'parameter' },
		);
		expect(report).toMatchObject({ sats_to_target: 0, btc_to_target: '0', payment_uri: null });
		const arkade = healthReport(
			figures,
			{ value: exact(60_000), currency: 'USD', at: null, source: 'parameter', note: '' },
			{ target: exact('0.5'), from: 'parameter' },
		);
		expect(arkade.payment_uri).toBeNull();
		expect(arkade.sats_to_target).toBe(1_333_334);
	});

	it.each([
		['Approved', /not been sent yet/],
		['CollateralConfirmed', /not paid out the loan yet/],
		['RepaymentProvided', /benefit of the doubt/],
		['Undercollateralized', /being liquidated/],
		['Extended', /extended_by_contract/],
		['Closed', /repaid or closed/],
		['Cancelled', /never became a loan/],
		['SomethingNew', /does not watch the LTV of a contract in this status/],
	])('refuses a contract in status %s', (status, why) => {
		const refusal = refusalOfStatus(apiRecord({ status }));
		expect(refusal?.message).toBe(
			`Contract c0000000-0000-4000-8000-000000000099 is ${status}: it has no collateral health`,
		);
		expect(refusal?.description).toMatch(why);
	});

	it('accepts an open loan, and refuses one marked Liquidated', () => {
		expect(refusalOfStatus(apiRecord())).toBeUndefined();
		expect(refusalOfStatus(apiRecord({ liquidation_status: 'Liquidated' }))?.message).toMatch(
			/is liquidated/,
		);
	});

	it.each([
		['no balance', { balance_outstanding: 'a lot' }, /balance_outstanding is "a lot"/],
		['sats that are not whole', { collateral_sats: 1.5 }, /must be whole numbers of sats/],
		[
			'no collateral beyond the fee',
			{ collateral_sats: 10_000, deposited_sats: 10_000 },
			/holds no collateral that counts/,
		],
		['no creation date', { created_at: 'yesterday' }, /decides the liquidation threshold/],
		['thresholds out of order', { ltv_threshold_margin_call_2: 0.95 }, /each above the one before/],
		['a missing threshold', { ltv_threshold_margin_call_1: null }, /must be LTV ratios/],
		[
			'no liquidation price',
			{ liquidation_price: null },
			/liquidation_price is nothing|not a price/,
		],
	])('refuses a record with %s', (_, fields, why) => {
		const read = readHealthFigures(apiRecord(fields));
		expect('figures' in read).toBe(false);
		const { message, description } = read as { message: string; description: string };
		expect(`${message}. ${description}`).toMatch(why);
	});

	it("refuses figures that do not give the contract's own liquidation price", () => {
		const refusal = refusalOfLiquidationPrice(figuresOf({ liquidation_price: 55_555.57 }));
		expect(refusal?.message).toBe(
			"Lendasat's numbers for contract c0000000-0000-4000-8000-000000000099 do not add up",
		);
		expect(refusal?.description).toMatch(/liquidation_price is 55555.57, .* gives 55555.56/);
		// A legacy contract whose price was computed at 0.9 does not add up either.
		expect(
			refusalOfLiquidationPrice(figuresOf({ created_at: '2025-01-01T00:00:00Z' })),
		).toBeDefined();
	});

	it('aims at the initial LTV unless a target is given, and never at or above the liquidation threshold', () => {
		const figures = figuresOf();
		expect(targetLtvOf(figures, undefined)).toEqual({ target: exact(0.5), from: 'initial_ltv' });
		expect(targetLtvOf(figures, exact('0.6'))).toEqual({ target: exact('0.6'), from: 'parameter' });
		expect(targetLtvOf(figures, exact('0.9'))).toMatchObject({
			message: expect.stringMatching(/is not below/),
		});
		expect(targetLtvOf(figuresOf({ initial_ltv: null }), undefined)).toMatchObject({
			description: expect.stringMatching(/Enter a Target LTV/),
		});
	});
});
