/** API key self-management (live-api §2.3): list, create (works at once), delete (stops working at once). */
import { ApiError } from '../errors';
import { caller, emptyReply, jsonReply, type Reply, type RequestContext, type Route } from '../router';
import { issueKey, keysOfUser } from '../state';
import { parseIntegerParam, requireFields, requireObject, requireString } from '../validate';

function listKeys(ctx: RequestContext): Reply {
	const keys = keysOfUser(ctx.state, caller(ctx).user.id);
	return jsonReply(keys.map(({ id, description, created_at }) => ({ id, description, created_at })));
}

function createKey(ctx: RequestContext): Reply {
	const body = requireObject(ctx.body, ['description']);
	requireFields(body, ['description']);
	const description = requireString(body, 'description', 'INVALID_FIELD');
	const record = issueKey(ctx.state, caller(ctx).user.id, 'borrower', description);
	return jsonReply({ api_key: record.key });
}

function deleteKey(ctx: RequestContext): Reply {
	const id = parseIntegerParam(ctx.params.id, 'id');
	const record = keysOfUser(ctx.state, caller(ctx).user.id).find((key) => key.id === id);
	if (record) ctx.state.keys.delete(record.key);
	// The live backend deletes "where id and owner match" and answers an empty 200 either way.
	else if (ctx.config.dialect === 'spec') throw new ApiError(404, 'KEY_NOT_FOUND', `API key ${id} not found`);
	return emptyReply();
}

export const keyRoutes: Route[] = [
	{ method: 'GET', pattern: '/api/keys', auth: 'borrower', body: 'none', handle: listKeys },
	{ method: 'POST', pattern: '/api/keys', auth: 'borrower', body: 'json', handle: createKey },
	{ method: 'DELETE', pattern: '/api/keys/:id', auth: 'borrower', body: 'none', handle: deleteKey },
];
