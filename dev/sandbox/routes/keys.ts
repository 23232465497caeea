/** API key self-management (live-api §2.3): list, create (works at once), delete (stops working at once). */
import { ApiError, livePathRejection, shorten, SOMETHING_WENT_WRONG } from '../errors';
import {
	caller,
	emptyReply,
	jsonReply,
	type Reply,
	type RequestContext,
	type Route,
} from '../router';
import { deserializeLive } from '../serde';
import { issueKey, keysOfUser } from '../state';
import { requireFields, requireObject, requireString } from '../validate';

/**
 * db/api_keys.rs insert_borrower: `INSERT … WHERE (SELECT COUNT(*) … WHERE borrower_id = $4) < 5`,
 * else `bail!("Cannot insert another API key. Max = 5")`, which post_api_key maps to
 * Error::Database: 500 "Something went wrong". The count includes the key an API account was created with.
 */
export const MAX_KEYS_PER_USER = 5;

function description(ctx: RequestContext): string {
	if (ctx.config.dialect === 'live') {
		const body = deserializeLive(ctx.rawBody, ctx.body, 'CreateApiKey', [
			{ name: 'description', type: { kind: 'string' } },
		]);
		return body.description as string;
	}
	const body = requireObject(ctx.body, ['description']);
	requireFields(body, ['description']);
	return requireString(body, 'description', 'INVALID_FIELD');
}

function listKeys(ctx: RequestContext): Reply {
	const keys = keysOfUser(ctx.state, caller(ctx).user.id);
	return jsonReply(
		keys.map(({ id, description, created_at }) => ({ id, description, created_at })),
	);
}

function createKey(ctx: RequestContext): Reply {
	const text = description(ctx);
	const userId = caller(ctx).user.id;
	if (keysOfUser(ctx.state, userId).length >= MAX_KEYS_PER_USER) {
		throw new ApiError(
			409,
			'KEY_LIMIT_REACHED',
			`Cannot insert another API key. Max = ${MAX_KEYS_PER_USER}`,
			SOMETHING_WENT_WRONG,
		);
	}
	const record = issueKey(ctx.state, userId, 'borrower', text);
	return jsonReply({ api_key: record.key });
}

/** The path segment as the backend's `Path<i32>`. */
function keyId(ctx: RequestContext): number {
	const raw = ctx.params.id;
	if (/^[+-]?\d+$/.test(raw) && Number(raw) >= -(2 ** 31) && Number(raw) <= 2 ** 31 - 1)
		return Number(raw);
	throw new ApiError(
		400,
		'INVALID_KEY_ID',
		`Parameter id must be an integer, got ${shorten(raw)}`,
		livePathRejection(raw, 'i32'),
	);
}

function deleteKey(ctx: RequestContext): Reply {
	const id = keyId(ctx);
	const record = keysOfUser(ctx.state, caller(ctx).user.id).find((key) => key.id === id);
	if (record) ctx.state.keys.delete(record.key);
	// db/api_keys.rs delete_borrower: `DELETE … WHERE borrower_id = $1 AND id = $2`, no row check: an
	// unknown or foreign id is an empty 200 too.
	else if (ctx.config.dialect === 'spec')
		throw new ApiError(404, 'KEY_NOT_FOUND', `API key ${id} not found`);
	return emptyReply();
}

export const keyRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/keys', auth: 'borrower', body: 'none', handle: listKeys },
	{ method: 'POST', pattern: '/api/keys', auth: 'borrower', body: 'json', handle: createKey },
	{ method: 'DELETE', pattern: '/api/keys/:id', auth: 'borrower', body: 'none', handle: deleteKey },
];
