import type { IDataObject, IExecuteSingleFunctions, INodeExecutionData } from 'n8n-workflow';

import { pickFields, simplifyItems } from '../../descriptions/fields';
import { lenderNameOf } from '../../methods/offerPicker';

/**
 * What a borrower compares between offers. The nested lender record is flattened to
 * `lender_name`, and `kyc_link` to the boolean `kyc_required`. Values pass through as the
 * server sent them, unknown enum values included.
 */
export function simplifyOffer(offer: IDataObject): IDataObject {
	const lenderName = lenderNameOf(offer);
	return {
		...pickFields(offer, ['id', 'name']),
		...(lenderName === undefined ? {} : { lender_name: lenderName }),
		...pickFields(offer, [
			'loan_asset',
			'loan_amount_min',
			'loan_amount_max',
			'duration_days_min',
			'duration_days_max',
			'interest_rate',
			'min_ltv',
		]),
		...('kyc_link' in offer ? { kyc_required: Boolean(offer.kyc_link) } : {}),
		...pickFields(offer, ['repayment_plan', 'collateral_asset', 'loan_payout', 'status']),
	};
}

/** The postReceive of the offer operations' "Simplify" switch. */
export async function simplifyOffers(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return simplifyItems(this, items, simplifyOffer);
}
