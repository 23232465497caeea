import {
	collateralAndKycOf,
	installmentAmount,
	simplifyContract,
} from '../../nodes/LendasatBorrower/resources/contract/shared';

/*
 * Simplify of a contract as pure functions: the collateral and KYC keys are always there (null where
 * the record has nothing), and collateral is owed only while the contract waits for it.
 */

describe('the collateral and KYC keys', () => {
	it('flattens kyc_info and keeps the collateral fields', () => {
		expect(
			collateralAndKycOf({
				collateral_asset: 'ArkadeBtc',
				requires_ark_settlement: false,
				kyc_info: { kyc_link: 'https://kyc.example.com/start', is_kyc_done: true },
			}),
		).toEqual({
			collateral_asset: 'ArkadeBtc',
			requires_ark_settlement: false,
			kyc_link: 'https://kyc.example.com/start',
			kyc_done: true,
		});
	});

	it.each([
		['a record of the specification (none of the fields)', { id: 'x', status: 'pending' }],
		['kyc_info null', { kyc_info: null, collateral_asset: null }],
		['kyc_info without its fields', { kyc_info: {} }],
		['kyc_info that is not an object', { kyc_info: 'https://kyc.example.com' }],
	])('gives null, never leaves a key out, for %s', (_case, record) => {
		expect(collateralAndKycOf(record)).toEqual({
			collateral_asset: null,
			requires_ark_settlement: null,
			kyc_link: null,
			kyc_done: null,
		});
	});
});

describe('collateral_to_send_sats', () => {
	const record = (status: string) => ({ id: 'c', status, initial_collateral_sats: 1014860 });

	it.each(['Requested', 'Approved', 'pending'])('is owed in status %s', (status) => {
		expect(simplifyContract(record(status)).collateral_to_send_sats).toBe(1014860);
	});

	it.each([
		'CollateralSeen',
		'CollateralConfirmed',
		'PrincipalGiven',
		'RepaymentConfirmed',
		'Closed',
		'Cancelled',
		'RequestExpired',
		'SomethingNew',
	])('is null, the key kept, in status %s', (status) => {
		const simple = simplifyContract(record(status));
		expect(simple).toHaveProperty('collateral_to_send_sats', null);
	});

	it('stays absent for a record without initial_collateral_sats', () => {
		expect(simplifyContract({ id: 'c', status: 'pending' })).not.toHaveProperty(
			'collateral_to_send_sats',
		);
	});
});

describe("an installment's amount", () => {
	it.each([
		[{ principal: 1000, interest: 12.345 }, 1012.35],
		[{ principal: 0.1, interest: 0.2 }, 0.3],
		[{ interest: 41.1 }, 41.1],
		[{ principal: '100', interest: '1.5' }, 101.5],
		[{}, undefined],
		[{ principal: 'a lot', interest: 1 }, undefined],
	])('%j asks for %s', (installment, amount) => {
		expect(installmentAmount(installment)).toBe(amount);
	});
});
