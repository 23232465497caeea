/** The in-app notification feed (live-api §2.7, §4): list (newest first), mark all read, mark one read. */
import { badRequest, shorten } from '../errors';
import { paginate, parsePageRequest } from '../pagination';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import type { NotificationMessage } from '../types';

function parseUnreadOnly(raw: string | undefined): boolean {
	if (raw === undefined || raw === '' || raw === 'true') return true;
	if (raw === 'false') return false;
	throw badRequest('INVALID_QUERY', `Parameter unread_only must be true or false, got ${shorten(raw)}`, {
		message: 'Bad Request',
	});
}

/** Timestamp descending; equal timestamps keep "last posted first" (the sort is stable on the reversed list). */
function newestFirst(messages: NotificationMessage[]): NotificationMessage[] {
	return messages
		.reverse()
		.sort((a, b) => (a.data.timestamp === b.data.timestamp ? 0 : a.data.timestamp < b.data.timestamp ? 1 : -1));
}

function ownNotifications(ctx: RequestContext): NotificationMessage[] {
	return ctx.state.notifications.get(caller(ctx).user.id) ?? [];
}

function listNotifications(ctx: RequestContext): Reply {
	const pageRequest = parsePageRequest(ctx.query, { defaultLimit: 20, maxLimit: 100, liveMessage: 'Bad Request' });
	const unreadOnly = parseUnreadOnly(ctx.query.unread_only);
	const all = ownNotifications(ctx);
	const selected = unreadOnly ? all.filter((message) => !message.data.read) : all.slice();
	return jsonReply(paginate(newestFirst(selected), pageRequest));
}

function markAllRead(ctx: RequestContext): Reply {
	for (const message of ownNotifications(ctx)) message.data.read = true;
	return jsonReply(null);
}

function markOneRead(ctx: RequestContext): Reply {
	const message = ownNotifications(ctx).find((candidate) => candidate.data.id === ctx.params.id);
	if (message) message.data.read = true;
	return jsonReply(null);
}

export const notificationRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/notifications', auth: 'borrower', body: 'none', handle: listNotifications },
	{ method: 'PUT', pattern: '/api/notifications', auth: 'borrower', body: 'none', handle: markAllRead },
	{ method: 'PUT', pattern: '/api/notifications/:id', auth: 'borrower', body: 'none', handle: markOneRead },
];
