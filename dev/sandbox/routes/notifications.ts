/** The in-app notification feed (live-api §2.7, §4): list (newest first), mark all read, mark one read. */
import { uuidFor } from '../ids';
import { lyingPage, paginate, parsePageRequest, type Page, type PageRequest } from '../pagination';
import { boolParam } from '../query';
import { caller, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import type { NotificationData, NotificationMessage } from '../types';

/** The three notification tables of the live backend; the order in which its handler merges them. */
const KINDS = ['ContractUpdate', 'ChatMessage', 'InstallmentUpdate'];

/** Newest first; equal timestamps keep "last posted first". */
function newestFirst(messages: NotificationMessage[]): NotificationMessage[] {
	return messages
		.slice()
		.reverse()
		.sort((a, b) =>
			a.data.timestamp === b.data.timestamp ? 0 : a.data.timestamp < b.data.timestamp ? 1 : -1,
		);
}

function ownNotifications(ctx: RequestContext): NotificationMessage[] {
	return ctx.state.notifications.get(caller(ctx).user.id) ?? [];
}

/**
 * hub 0.8.2 routes/borrower/notifications.rs get_all_notifications: each of the three kinds is queried
 * on its own with the same LIMIT/OFFSET (newest first), the results are concatenated (contract, chat,
 * installment), stably sorted by timestamp descending and cut to `limit`; `total` is the sum of the
 * three counts and `total_pages` = ceil(total / limit). So page 2 skips whatever page 1 cut off, and a
 * client that walks the pages can miss items. Messages of another `type` (admin-made) form no table
 * of their own here: they are paged with ContractUpdate.
 */
function livePage(
	messages: NotificationMessage[],
	request: PageRequest,
): Page<NotificationMessage> {
	const offset = (request.page - 1) * request.limit;
	const kindOf = (message: NotificationMessage): string =>
		KINDS.includes(message.type) ? message.type : 'ContractUpdate';
	const merged = KINDS.flatMap((kind) =>
		newestFirst(messages.filter((message) => kindOf(message) === kind)).slice(
			offset,
			offset + request.limit,
		),
	);
	const data = merged
		.map((message, index) => ({ message, index }))
		.sort((a, b) =>
			a.message.data.timestamp === b.message.data.timestamp
				? a.index - b.index
				: a.message.data.timestamp < b.message.data.timestamp
					? 1
					: -1,
		)
		.slice(0, request.limit)
		.map(({ message }) => message);
	return {
		data,
		page: request.page,
		limit: request.limit,
		total: messages.length,
		total_pages: Math.ceil(messages.length / request.limit),
	};
}

function listNotifications(ctx: RequestContext): Reply {
	const dialect = ctx.config.dialect;
	// PaginationQuery {page, limit, unread_only} is deserialised first (plain-text 400 on a bad value),
	// then validate(): its errors become Error::BadRequest, answered as 400 {"message":"Bad Request"}.
	const unreadOnly = boolParam(dialect, ctx.query, 'unread_only', true);
	const pageRequest = parsePageRequest(
		ctx.query,
		{ defaultLimit: 20, maxLimit: 100, liveMessage: 'Bad Request' },
		dialect,
	);
	const all = ownNotifications(ctx);
	const selected = unreadOnly ? all.filter((message) => !message.data.read) : all.slice();
	const honest = (request: PageRequest): Page<NotificationMessage> =>
		dialect === 'live' ? livePage(selected, request) : paginate(newestFirst(selected), request);
	const userId = caller(ctx).user.id;
	const newest = ctx.state.now().getTime();
	return jsonReply(
		lyingPage(ctx.config.paging, pageRequest, honest, {
			invent: (page, index) => {
				const position = (page - 1) * pageRequest.limit + index;
				const template = selected.length > 0 ? selected[position % selected.length] : undefined;
				const data: NotificationData = {
					...(template?.data ?? { status: 'Requested' }),
					id: uuidFor(ctx.state.seed, `endless-notification:${userId}:${page}:${index}`),
					timestamp: new Date(newest - position * 60_000).toISOString(),
					read: false,
				};
				return { type: template?.type ?? 'ContractUpdate', data };
			},
			withoutId: (message) => {
				const data: Partial<NotificationData> = { ...message.data };
				delete data.id;
				return { ...message, data: data as NotificationData };
			},
		}),
	);
}

function markAllRead(ctx: RequestContext): Reply {
	for (const message of ownNotifications(ctx)) message.data.read = true;
	return jsonReply(null);
}

/** put_mark_as_read (hub 0.8.2) updates the notification by id with no ownership check: so does the live dialect. */
function markOneRead(ctx: RequestContext): Reply {
	const candidates =
		ctx.config.dialect === 'live'
			? [...ctx.state.notifications.values()].flat()
			: ownNotifications(ctx);
	const message = candidates.find((candidate) => candidate.data.id === ctx.params.id);
	if (message) message.data.read = true;
	return jsonReply(null);
}

export const notificationRoutes: Route[] = [
	{
		method: 'GET',
		pattern: '/api/notifications',
		auth: 'borrower',
		body: 'none',
		handle: listNotifications,
	},
	{
		method: 'PUT',
		pattern: '/api/notifications',
		auth: 'borrower',
		body: 'none',
		handle: markAllRead,
	},
	{
		method: 'PUT',
		pattern: '/api/notifications/:id',
		auth: 'borrower',
		body: 'none',
		handle: markOneRead,
	},
];
