import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * The loan terms the API knows by fixed names, shared by every operation that lists or sends them
 * (Offer → Get Many's filters, Contract → Create, Loan Application → Create).
 */

/** model.rs `LoanAsset`: the asset a loan is paid out in. */
export const LOAN_ASSET_OPTIONS: INodePropertyOptions[] = [
	{ name: 'CHF (Bank Transfer)', value: 'Chf' },
	{ name: 'EUR (Bank Transfer)', value: 'Eur' },
	{ name: 'MXN (Bank Transfer)', value: 'Mxn' },
	{ name: 'USD (Bank Transfer)', value: 'Usd' },
	{ name: 'USDC on Ethereum', value: 'UsdcEth' },
	{ name: 'USDC on Polygon', value: 'UsdcPol' },
	{ name: 'USDC on Solana', value: 'UsdcSol' },
	{ name: 'USDC on Starknet', value: 'UsdcStrk' },
	{ name: 'USDT on Ethereum', value: 'UsdtEth' },
	{ name: 'USDT on Liquid', value: 'UsdtLiquid' },
	{ name: 'USDT on Polygon', value: 'UsdtPol' },
	{ name: 'USDT on Solana', value: 'UsdtSol' },
	{ name: 'USDT on Starknet', value: 'UsdtStrk' },
];

export const LOAN_ASSETS = LOAN_ASSET_OPTIONS.map(({ value }) => String(value));

/** The loan assets paid out by bank transfer; every other one is a stablecoin. */
export const FIAT_LOAN_ASSETS = ['Chf', 'Eur', 'Mxn', 'Usd'];

/** model.rs `LoanType`: how a loan is paid out. */
export const LOAN_TYPES = [
	'StableCoin',
	'Fiat',
	'PayWithMoon',
	'MoonCardInstant',
	'Bringin',
] as const;

export const LOAN_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Bringin', value: 'Bringin', description: 'Paid out to a Bringin account' },
	{
		name: 'Fiat',
		value: 'Fiat',
		description: 'Bank transfer; needs fiat_loan_details in Extra Body Fields',
	},
	{
		name: 'Moon Card (Instant)',
		value: 'MoonCardInstant',
		description: 'Instant top-up of a Moon card',
	},
	{ name: 'Pay With Moon', value: 'PayWithMoon', description: 'Top-up of a Moon card' },
	{
		name: 'Stablecoin',
		value: 'StableCoin',
		description: 'Paid to your stablecoin address (Repayment Address)',
	},
];

/** model.rs `RepaymentPlan` (snake_case on the wire). */
export const REPAYMENT_PLAN_OPTIONS: INodePropertyOptions[] = [
	{
		name: 'Bullet',
		value: 'bullet',
		description: 'Principal and interest in one payment at the end',
	},
	{
		name: 'Interest Only (Monthly)',
		value: 'interest_only_monthly',
		description: 'Interest every 30 days, the principal with the last payment',
	},
	{
		name: 'Interest Only (Weekly)',
		value: 'interest_only_weekly',
		description: 'Interest every 7 days, the principal with the last payment',
	},
];

export const REPAYMENT_PLANS = REPAYMENT_PLAN_OPTIONS.map(({ value }) => String(value));
