import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../validation/checks';

/**
 * Where each event keeps its cursor in the node's static data. Both contract events share one
 * cursor: it records every contract's status and liquidation status, whichever event is chosen.
 */
export type CursorKey = 'contracts' | 'offers' | 'notifications' | 'installments';

const CURSOR_KEYS: CursorKey[] = ['contracts', 'offers', 'notifications', 'installments'];

export const CURSOR_VERSION = 1;

/** The stored cursor when it has the current shape; null means "no baseline yet". */
export function readCursor<T>(
	staticData: IDataObject,
	key: CursorKey,
	isValid: (value: IDataObject) => boolean,
): T | null {
	const value = staticData[key] as IDataObject | undefined;
	if (!value || typeof value !== 'object' || value.version !== CURSOR_VERSION || !isValid(value))
		return null;
	return value as unknown as T;
}

/**
 * Stores the cursor of a poll that succeeded, and drops the cursors of other events so the
 * static data stays small. Called last: a poll that fails leaves the static data as it was.
 */
export function saveCursor(staticData: IDataObject, key: CursorKey, cursor: object): void {
	for (const other of CURSOR_KEYS) {
		if (other !== key && other in staticData) delete staticData[other];
	}
	staticData[key] = cursor as IDataObject;
}

export function isRecordOf(value: unknown, isEntry: (entry: unknown) => boolean): boolean {
	return isRecord(value) && Object.values(value).every(isEntry);
}
