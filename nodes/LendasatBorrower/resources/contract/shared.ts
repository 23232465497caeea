import type {
	IDataObject,
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import {
	pickFields,
	simplifyField,
	simplifyItems,
	uuidLocatorModes,
} from '../../descriptions/fields';
import { nodeOf } from '../../transport/apiRoute';
import { requireIssuedId } from '../../validation/parameters';
import { isRecord } from '../../validation/checks';

/** The borrower's contracts: GET lists them, POST creates one; one of them is CONTRACTS_PATH/{id}. */
export const CONTRACTS_PATH = '/api/contracts';

/** The path of one contract (its ID encoded), e.g. for reading it before acting on it. */
export function contractPath(contractId: string): string {
	return `${CONTRACTS_PATH}/${encodeURIComponent(contractId)}`;
}

/** The operations that act on one existing contract, all through the `contractId` parameter. */
const OPERATIONS_ON_ONE_CONTRACT = [
	'broadcastArkClaim',
	'broadcastClaim',
	'broadcastRecovery',
	'cancel',
	'createBtcInvoice',
	'extend',
	'finishArkSettlement',
	'get',
	'getArkClaimPsbts',
	'getArkSettlement',
	'getClaimPsbt',
	'getHealth',
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
 * where to fund it, what is due next and where to pay it, which collateral path applies and where
 * to do KYC. The full record also carries keys, schedules and history.
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
			: {
					collateral_to_send_sats: awaitsCollateral(contract)
						? contract.initial_collateral_sats
						: null,
				}),
		...(nextInstallment ? { next_installment: nextInstallment } : {}),
		...pickFields(contract, ['loan_repayment_address', 'can_extend', 'liquidation_status']),
		...collateralAndKycOf(contract),
	};
}

/** Simplify as node version 1 gives it: its fourteen fields, and the collateral and KYC keys added later. */
function simplifyContractVersion1(contract: IDataObject): IDataObject {
	return { ...pickFields(contract, VERSION_1_SIMPLIFIED_FIELDS), ...collateralAndKycOf(contract) };
}

/**
 * Which collateral the contract holds and where its borrower does KYC, always as these four keys
 * (null where the record has nothing): `collateral_asset` (BitcoinBtc or ArkadeBtc) and
 * `requires_ark_settlement` tell the on-chain path from the Arkade ones; `kyc_link` and `kyc_done`
 * are the record's `kyc_info` flattened (null without it: the offer asks for no KYC).
 */
export function collateralAndKycOf(contract: IDataObject): IDataObject {
	const kycInfo = isRecord(contract.kyc_info) ? contract.kyc_info : {};
	return {
		collateral_asset: contract.collateral_asset ?? null,
		requires_ark_settlement: contract.requires_ark_settlement ?? null,
		kyc_link: kycInfo.kyc_link ?? null,
		kyc_done: kycInfo.is_kyc_done ?? null,
	};
}

/**
 * The statuses in which the collateral is still to be sent: a request (the specification's
 * `pending`, the live Requested) and an approved one. Past them, nothing is owed.
 */
const AWAITING_COLLATERAL = new Set(['Requested', 'Approved', 'pending']);

function awaitsCollateral(contract: IDataObject): boolean {
	return AWAITING_COLLATERAL.has(String(contract.status));
}

/** Installment statuses that are still owed (InstallmentStatus: pending | paid | confirmed | late | cancelled). */
const OPEN_INSTALLMENT_STATUSES = new Set(['pending', 'late']);

/** Whether an installment is still owed: pending, or late. */
export function isOpenInstallment(installment: IDataObject): boolean {
	return OPEN_INSTALLMENT_STATUSES.has(String(installment.status));
}

/** The earliest installment still to pay: its id, due date and amount (principal plus interest). */
function nextOpenInstallment(installments: unknown): IDataObject | undefined {
	if (!Array.isArray(installments)) return undefined;
	const open = installments
		.filter(isRecord)
		.filter(isOpenInstallment)
		.sort((a, b) => String(a.due_date).localeCompare(String(b.due_date)));
	if (!open.length) return undefined;
	const { id, due_date: dueDate, status } = open[0];
	return { id, due_date: dueDate, amount: installmentAmount(open[0]) ?? null, status };
}

/**
 * What an installment asks for, in the loan asset: principal plus interest (a missing one counts
 * as 0), rounded to cents as Lendasat rounds money. Undefined when the installment states neither,
 * or something that is not a number.
 */
export function installmentAmount(installment: IDataObject): number | undefined {
	const { principal, interest } = installment;
	if (principal === undefined && interest === undefined) return undefined;
	const sum = Number(principal ?? 0) + Number(interest ?? 0);
	return Number.isFinite(sum) ? Math.round(sum * 100) / 100 : undefined;
}

/** The postReceive of the contract operations' Simplify switch. */
export async function simplifyContracts(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	return simplifyItems(this, items, contractSimplifierOf(this));
}

/** Simplify as the node's version gives it (the switch itself is readSimplify's). */
export function contractSimplifierOf(
	context: IExecuteSingleFunctions,
): (contract: IDataObject) => IDataObject {
	return nodeOf(context).typeVersion < 1.1 ? simplifyContractVersion1 : simplifyContract;
}

/** One Simplify switch for the operations that return contract records, and for the Bitcoin repayment invoice. */
export const contractSimplifyField = simplifyField({
	resource: ['contract'],
	operation: ['createBtcInvoice', 'extend', 'get', 'getAll', 'getEvents', 'getNewEvents'],
});

export const contractIdField = contractLocatorField(
	{ resource: ['contract'], operation: OPERATIONS_ON_ONE_CONTRACT },
	'The contract to act on: pick one of your recent contracts, or enter its ID',
);

/**
 * A Contract parameter (`contractId`): one of the key's recent contracts From List, or By ID.
 * Other resources acting on a contract (disputes) show the same picker; `contractIdOf` reads it.
 */
export function contractLocatorField(
	show: NonNullable<INodeProperties['displayOptions']>['show'],
	description: string,
): INodeProperties {
	return {
		displayName: 'Contract',
		name: 'contractId',
		type: 'resourceLocator',
		required: true,
		default: { mode: 'list', value: '' },
		description,
		displayOptions: { show },
		modes: uuidLocatorModes(
			{ placeholder: 'Select a contract…', searchListMethod: 'searchContracts' },
			'contract',
			'7a3f2c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
		),
	};
}

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
 * A prepare step that checks the contract ID and puts it into the operation's path where its route
 * says `{id}` (e.g. /api/contracts/{id}/extend). The ID is a resource locator, which a URL expression
 * cannot validate.
 */
export async function sendToContract(
	this: IExecuteSingleFunctions,
	requestOptions: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return {
		...requestOptions,
		url: requestOptions.url.replace('{id}', encodeURIComponent(contractIdOf(this))),
	};
}
