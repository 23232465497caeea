import type { INodePropertyOptions } from 'n8n-workflow';

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

/** "CollateralSeen" → "Collateral Seen", sorted by name as n8n lists options. */
export const CONTRACT_STATUS_OPTIONS: INodePropertyOptions[] = CONTRACT_STATUSES.map(statusOption).sort((a, b) =>
	a.name.localeCompare(b.name),
);

function statusOption(value: string): INodePropertyOptions {
	const name = value.replace(/([a-z])([A-Z])/g, '$1 $2');
	const newerName = LEGACY_STATUSES[value];
	if (!newerName) return { name, value };
	return { name: `${name} (Legacy)`, value, description: `Older name of ${newerName}` };
}
