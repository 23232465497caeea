import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../transport/credentials';
import { requireConnection } from '../transport/connection';
import {
	exchange,
	settle,
	withNote,
	type Transport,
	type TransportSettings,
} from '../transport/exchange';
import { systemClock } from '../transport/clock';
import { viaN8n } from '../transport/senders';
import {
	DEFAULT_ATTEMPT_TIMEOUT_MS,
	DEFAULT_MAX_CONCURRENT,
	LOOKUP_SETTLE_MS,
} from '../transport/settings';

/**
 * A poll has a time budget and n8n polls again soon anyway, so a failing request is retried only
 * briefly; when that is not enough the poll fails and leaves its state untouched.
 */
const POLL_SETTINGS: TransportSettings = {
	retry: {
		maxRetries: 2,
		initialDelayMs: 500,
		maxDelayMs: 5_000,
		retryOn: ['rateLimit', 'serverUnavailable', 'network'],
	},
	attemptTimeoutMs: DEFAULT_ATTEMPT_TIMEOUT_MS,
	budgetMs: 60_000,
	maxConcurrent: DEFAULT_MAX_CONCURRENT,
	lookupSettleMs: LOOKUP_SETTLE_MS,
};

const NOTHING_EMITTED = 'Nothing was emitted; the next poll tries again.';

/** The page/limit envelope of GET /api/contracts and GET /api/notifications. */
export interface Page {
	data: IDataObject[];
	/** How many records the server counts in the listing, when it says. */
	total?: number;
}

/** The trigger's requests, through the same transport as the node's: a borrower key, checked first. */
export class TriggerApi {
	private constructor(private readonly transport: Transport) {}

	static async of(context: IPollFunctions, label: string): Promise<TriggerApi> {
		const connection = requireConnection(await context.getCredentials(CREDENTIAL_TYPE), {
			node: context.getNode(),
			label,
			keyType: 'borrower',
			wrongKeyAdvice:
				"The trigger watches a borrower's own contracts, offers and notifications: choose a credential whose Key Type is Borrower Key (for example the api_key returned by Account → Create).",
		});
		return new TriggerApi({
			connection,
			settings: POLL_SETTINGS,
			send: viaN8n(context),
			caller: { node: context.getNode(), label, requiredKeyType: 'borrower' },
			clock: systemClock,
		});
	}

	/** One page of a page/limit listing. */
	async page(path: string, qs: IDataObject): Promise<Page> {
		const envelope = (await this.get(path, qs, 'page')) as IDataObject;
		return {
			data: envelope.data as IDataObject[],
			total: isCount(envelope.total) ? envelope.total : undefined,
		};
	}

	/** An unpaginated list (GET /api/offers). */
	async list(path: string, qs: IDataObject): Promise<IDataObject[]> {
		return (await this.get(path, qs, 'list')) as IDataObject[];
	}

	private async get(path: string, qs: IDataObject, expect: 'page' | 'list'): Promise<unknown> {
		const answer = await settle(exchange(this.transport, { method: 'GET', path, qs }, expect));
		if ('value' in answer) return answer.value;
		throw withNote(answer.error, NOTHING_EMITTED);
	}
}

/** One page of a page/limit listing, for the trigger's label. */
export async function getPage(
	context: IPollFunctions,
	label: string,
	path: string,
	qs: IDataObject,
): Promise<Page> {
	return await (await TriggerApi.of(context, label)).page(path, qs);
}

/** An unpaginated list (GET /api/offers), for the trigger's label. */
export async function getList(
	context: IPollFunctions,
	label: string,
	path: string,
	qs: IDataObject,
): Promise<IDataObject[]> {
	return await (await TriggerApi.of(context, label)).list(path, qs);
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
