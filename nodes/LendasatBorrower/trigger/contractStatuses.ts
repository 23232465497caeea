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
