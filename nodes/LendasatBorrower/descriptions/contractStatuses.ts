import { NodeApiError, type INodePropertyOptions } from 'n8n-workflow';

/** The live API's ContractStatus values (live-api §3.4). Others the server may add pass through. */
const CONTRACT_STATUSES = [
	'Requested',
	'Approved',
	'CollateralSeen',
	'CollateralConfirmed',
	'PrincipalGiven',
	'RepaymentProvided',
	'RepaymentConfirmed',
	'Undercollateralized',
	'Defaulted',
	'ClosingByClaim',
	'Closed',
	'Closing',
	'ClosingByLiquidation',
	'ClosedByLiquidation',
	'ClosingByDefaulting',
	'ClosedByDefaulting',
	'Extended',
	'Rejected',
	'DisputeBorrowerStarted',
	'DisputeLenderStarted',
	'Cancelled',
	'RequestExpired',
	'ApprovalExpired',
	'CollateralRecoverable',
	'ClosingByRecovery',
	'ClosedByRecovery',
];

/** Statuses the API still sends under an older name, with the name that replaced it. */
const LEGACY_STATUSES: Record<string, string> = { Closing: 'Closing By Claim' };

/** The specification's one status: a new contract request, which the live backend calls Requested. */
const SPECIFICATION_PENDING: INodePropertyOptions = {
	name: 'Pending (Specification)',
	value: 'pending',
	description:
		"A new contract request on a server that follows the specification; Lendasat's backend calls it Requested",
};

/** "CollateralSeen" → "Collateral Seen", sorted by name as n8n lists options. */
export const CONTRACT_STATUS_OPTIONS: INodePropertyOptions[] = [
	...CONTRACT_STATUSES.map(statusOption),
	SPECIFICATION_PENDING,
].sort((a, b) => a.name.localeCompare(b.name));

function statusOption(value: string): INodePropertyOptions {
	const name = value.replace(/([a-z])([A-Z])/g, '$1 $2');
	const newerName = LEGACY_STATUSES[value];
	if (!newerName) return { name, value };
	return { name: `${name} (Legacy)`, value, description: `Older name of ${newerName}` };
}

/**
 * Whether the server refused the specification's `pending` in a status filter (the live backend
 * answers 400 "Invalid contract status: pending"): it has no such status, so no contract of it.
 */
export function refusedPendingStatus(error: unknown): boolean {
	return (
		error instanceof NodeApiError &&
		error.httpCode === '400' &&
		/invalid contract status:?\s*"?pending\b/i.test(`${error.message} ${error.description ?? ''}`)
	);
}
