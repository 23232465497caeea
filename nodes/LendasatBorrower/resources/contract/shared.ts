import type { IExecuteSingleFunctions, IHttpRequestOptions, INodeProperties, PreSendAction } from 'n8n-workflow';

import { simplifyField } from '../../shared/fields';
import { requireText } from '../../shared/parameters';
import { checkUuid } from '../../shared/validation';

/** The operations that act on one existing contract, all through the `contractId` parameter. */
const OPERATIONS_ON_ONE_CONTRACT = ['cancel', 'extend', 'get', 'reportRepayment'];

/** What a workflow usually needs from a contract; the full record also carries keys, schedules and history. */
export const SIMPLIFIED_CONTRACT_FIELDS = [
	'id',
	'status',
	'loan_amount',
	'loan_asset',
	'duration_days',
	'interest_rate',
	'balance_outstanding',
	'collateral_sats',
	'liquidation_status',
	'liquidation_price',
	'contract_address',
	'expiry',
	'created_at',
	'updated_at',
];

/** One Simplify switch for the operations that return contract records. */
export const contractSimplifyField = simplifyField({
	resource: ['contract'],
	operation: ['extend', 'get', 'getAll'],
});

export const contractIdField: INodeProperties = {
	displayName: 'Contract',
	name: 'contractId',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description: 'The contract to act on: pick one of your recent contracts, or enter its ID',
	displayOptions: { show: { resource: ['contract'], operation: OPERATIONS_ON_ONE_CONTRACT } },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a contract…',
			typeOptions: { searchListMethod: 'searchContracts', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$',
						errorMessage: 'Not a contract ID: expected a UUID such as 7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
					},
				},
			],
		},
	],
};

/** The contract ID of the current item, checked, without surrounding white space. */
export function contractIdOf(context: IExecuteSingleFunctions): string {
	return requireText(context, 'Contract', context.getNodeParameter('contractId', '', { extractValue: true }), checkUuid);
}

/**
 * A preSend that checks the contract ID and puts it into the path, followed by `suffix`
 * (e.g. '/extend'). The ID is a resource locator, which a URL expression cannot validate.
 */
export function sendToContract(suffix = ''): PreSendAction {
	return async function setContractUrl(
		this: IExecuteSingleFunctions,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		requestOptions.url = `/api/contracts/${encodeURIComponent(contractIdOf(this))}${suffix}`;
		return requestOptions;
	};
}
