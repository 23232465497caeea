import { profileOperation } from './shared';

export const { option: profileGetLenderOperation, fields: profileGetLenderFields } =
	profileOperation({
		operation: 'getLender',
		parameter: 'lenderId',
		who: 'Lender',
		segment: 'lenders',
		source:
			'Every offer and contract names its lender under lender.id (Offer → Get, Contract → Get with Simplify off)',
		fields:
			'its ID, name, joined_at, successful_contracts, timezone and vetted (whether Lendasat vetted the lender)',
	});
