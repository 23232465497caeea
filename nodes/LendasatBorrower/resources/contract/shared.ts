import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	PreSendAction,
} from 'n8n-workflow';

import { pickFields, simplifyField } from '../../descriptions/fields';
import { readBoolean, requireIssuedId } from '../../validation/parameters';
import { isRecord } from '../../validation/checks';

/** The operations that act on one existing contract, all through the `contractId` parameter. */
const OPERATIONS_ON_ONE_CONTRACT = [
	'broadcastClaim',
	'broadcastRecovery',
	'cancel',
	'createBtcInvoice',
	'extend',
	'get',
	'getClaimPsbt',
	'getRecoveryPsbt',
	'reportBtcInvoicePaid',
	'reportRepayment',
	'sendFiatDetails',
	'updateBorrowerAddress',
];

/** Simplify as node version 1 gives it, kept for the workflows saved with it. */
const VERSION_1_SIMPLIFIED_FIELDS = [
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

/**
 * What a workflow needs to act on a contract (node version 1.1 on): where it stands, what to send
 * where to fund it, what is due next and where to pay it. The full record also carries keys,
 * schedules and history.
 */
export function simplifyContract(contract: IDataObject): IDataObject {
	const nextInstallment = nextOpenInstallment(contract.installments);
	return {
		...pickFields(contract, [
			'id',
			'status',
			'loan_amount',
			'loan_asset',
			'balance_outstanding',
			'expiry',
			'contract_address',
		]),
		// Includes the origination fee: exactly what Lendasat's own funding page asks for.
		...(contract.initial_collateral_sats === undefined
			? {}
			: { collateral_to_send_sats: contract.initial_collateral_sats }),
		...(nextInstallment ? { next_installment: nextInstallment } : {}),
		...pickFields(contract, ['loan_repayment_address', 'can_extend', 'liquidation_status']),
	};
}

const OPEN_INSTALLMENT_STATUSES = new Set(['pending', 'late']);

/** The earliest installment still to pay: its id, due date and amount (principal plus interest). */
function nextOpenInstallment(installments: unknown): IDataObject | undefined {
	if (!Array.isArray(installments)) return undefined;
	const open = installments
		.filter(isRecord)
		.filter((installment) => OPEN_INSTALLMENT_STATUSES.has(String(installment.status)))
		.sort((a, b) => String(a.due_date).localeCompare(String(b.due_date)));
	if (!open.length) return undefined;
	const { id, due_date: dueDate, principal, interest, status } = open[0];
	const amount = Number(principal ?? 0) + Number(interest ?? 0);
	return { id, due_date: dueDate, amount: Math.round(amount * 100) / 100, status };
}

/** The postReceive of the contract operations' Simplify switch. */
export async function simplifyContracts(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (!readBoolean(this, 'simplify', 'Simplify', true)) return items;
	const simplify =
		this.getNode().typeVersion < 1.1
			? (contract: IDataObject) => pickFields(contract, VERSION_1_SIMPLIFIED_FIELDS)
			: simplifyContract;
	return items.map((item) => ({ ...item, json: simplify(item.json) }));
}

/** One Simplify switch for the operations that return contract records, and for the Bitcoin repayment invoice. */
export const contractSimplifyField = simplifyField({
	resource: ['contract'],
	operation: ['createBtcInvoice', 'extend', 'get', 'getAll'],
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
						regex:
							'^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$',
						errorMessage:
							'Not a contract ID: expected a UUID such as 7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
					},
				},
			],
		},
	],
};

/**
 * The contract ID of the current item, checked, without surrounding white space, in lower case:
 * Lendasat stores contract IDs as lower-case text and compares them exactly.
 */
export function contractIdOf(context: IExecuteSingleFunctions): string {
	return requireIssuedId(
		context,
		'Contract',
		context.getNodeParameter('contractId', '', { extractValue: true }),
	);
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
