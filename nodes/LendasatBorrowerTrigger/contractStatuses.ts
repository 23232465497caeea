import type { INodePropertyOptions } from 'n8n-workflow';

/** The live API's ContractStatus values (live-api §3.4). Others the server may add pass through. */
export const CONTRACT_STATUSES = [
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

/** Statuses a contract does not leave; the cursor forgets such contracts once they are old. */
export const TERMINAL_STATUSES = new Set([
	'Closed',
	'ClosedByLiquidation',
	'ClosedByDefaulting',
	'ClosedByRecovery',
	'Cancelled',
	'Rejected',
	'RequestExpired',
	'ApprovalExpired',
	'Extended',
]);

/** The liquidation statuses that mean a margin call (or its end, the liquidation). */
export const MARGIN_CALL_STATUSES = new Set(['FirstMarginCall', 'SecondMarginCall', 'Liquidated']);

/** "CollateralSeen" → "Collateral Seen", sorted by name as n8n lists options. */
export const CONTRACT_STATUS_OPTIONS: INodePropertyOptions[] = CONTRACT_STATUSES.map((value) => ({
	name: value.replace(/([a-z])([A-Z])/g, '$1 $2'),
	value,
})).sort((a, b) => a.name.localeCompare(b.name));
