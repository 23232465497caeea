import { profileOperation } from './shared';

export const { option: profileGetBorrowerOperation, fields: profileGetBorrowerFields } =
	profileOperation({
		operation: 'getBorrower',
		parameter: 'borrowerId',
		who: 'Borrower',
		segment: 'borrowers',
		source:
			'Your own ID is user.id in User → Get Me; a loan application names its borrower under borrower_id',
		fields: 'its ID, name, joined_at, successful_contracts and timezone',
	});
