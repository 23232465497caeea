import { createHash } from 'crypto';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { isRecord } from '../validation/checks';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { getPage } from './api';
import { CURSOR_VERSION, isRecordOf, readCursor, saveCursor } from './cursor';
import {
	byTimeAscending,
	OVERLAP_MS,
	timestampOf,
	walkNewestFirst,
	type NewestFirstListing,
} from './walk';

/** The newest notification timestamp seen, and the IDs seen within the overlap window before it. */
export interface NotificationCursor {
	version: typeof CURSOR_VERSION;
	newest: number | null;
	/** Notification ID → its timestamp in milliseconds. */
	seen: Record<string, number>;
}

const NOTIFICATIONS_PATH = '/api/notifications';
// Read notifications too: marking one read elsewhere must not hide it from the trigger.
const ALL_NOTIFICATIONS = { unread_only: false };

/**
 * Lendasat's backend pages its three kinds of notification with one offset and cuts the merged page
 * to the limit (live-api §4): the first page of up to 100 is the newest 100 exactly, later pages
 * may leave some out for good. A poll whose news fit on the first page is exact; one that needs
 * more reads the whole feed and fails unless it finds the server's `total`.
 */
function listing(label: string): NewestFirstListing {
	return {
		label,
		path: NOTIFICATIONS_PATH,
		qs: ALL_NOTIFICATIONS,
		records: 'notifications',
		lossyAfterFirstPage: `most likely because Lendasat lists only its newest ${MAX_PAGE_SIZE} notifications exactly (it pages contract, installment and chat notifications together and leaves some out past the first page) and more than that arrived since the last poll.`,
		whenShort: `Polls fail while the notifications Lendasat cannot list are newer than the trigger's position: poll often enough that fewer than ${MAX_PAGE_SIZE} arrive in between. To go on from now instead, rename the trigger node: n8n keeps a trigger's position under the node's name, so a renamed trigger starts from the newest notification (the ones in between are not emitted).`,
		idOf: notificationId,
		timeOf: notificationTime,
	};
}

/** One scheduled poll: notifications not seen before, or null. The first poll only records a baseline. */
export async function pollNotifications(
	context: IPollFunctions,
	label: string,
): Promise<IDataObject[] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const cursor = readCursor<NotificationCursor>(staticData, 'notifications', isNotificationCursor);
	const newest = cursor?.newest ?? null;
	const notifications = await walkNewestFirst(context, listing(label), (newestSeen) =>
		// The baseline only needs the IDs within the window that later polls read again.
		cursor ? (newest === null ? -Infinity : newest - OVERLAP_MS) : newestSeen - OVERLAP_MS,
	);
	const { next, fresh } = advanceNotificationCursor(cursor, notifications);
	saveCursor(staticData, 'notifications', next);
	return fresh.length ? fresh.map(toItem) : null;
}

/** "Fetch Test Event": the newest notification, read or not. */
export async function sampleNotification(
	context: IPollFunctions,
	label: string,
): Promise<IDataObject[] | null> {
	const { data } = await getPage(context, label, NOTIFICATIONS_PATH, {
		...ALL_NOTIFICATIONS,
		page: 1,
		limit: 1,
	});
	return data.length ? [toItem(data[0])] : null;
}

/**
 * Notifications are diffed by ID within the overlap window behind the newest timestamp seen;
 * older ones are not news. Without a cursor (the first poll) nothing is news.
 * A notification without a readable timestamp cannot be placed in the window and is not emitted.
 */
export function advanceNotificationCursor(
	cursor: NotificationCursor | null,
	notifications: IDataObject[],
): { next: NotificationCursor; fresh: IDataObject[] } {
	const seen = { ...(cursor?.seen ?? {}) };
	let newest = cursor?.newest ?? null;
	const cutoff = newest === null ? -Infinity : newest - OVERLAP_MS;
	const fresh: IDataObject[] = [];

	for (const notification of notifications) {
		const id = notificationId(notification);
		const time = notificationTime(notification);
		if (id in seen || !Number.isFinite(time)) continue;
		if (cursor && time >= cutoff) fresh.push(notification);
		seen[id] = time;
		newest = Math.max(newest ?? time, time);
	}
	for (const [id, time] of Object.entries(seen)) {
		if (newest !== null && time < newest - OVERLAP_MS) delete seen[id];
	}
	fresh.sort(byTimeAscending(notificationTime));
	return { next: { version: CURSOR_VERSION, newest, seen }, fresh };
}

function notificationData(notification: IDataObject): IDataObject {
	const data = notification.data;
	return isRecord(data) ? data : notification;
}

function notificationTime(notification: IDataObject): number {
	return timestampOf(notificationData(notification).timestamp);
}

/** The notification's ID; a digest of its content for one that has none. */
function notificationId(notification: IDataObject): string {
	const id = notificationData(notification).id;
	if (typeof id === 'string' || typeof id === 'number') return String(id);
	return `sha256:${createHash('sha256').update(JSON.stringify(notification)).digest('hex').slice(0, 32)}`;
}

function toItem(notification: IDataObject): IDataObject {
	return { ...notification, event: 'newNotification' };
}

function isNotificationCursor(value: IDataObject): boolean {
	return (
		(value.newest === null || typeof value.newest === 'number') &&
		isRecordOf(value.seen, (time) => typeof time === 'number')
	);
}
