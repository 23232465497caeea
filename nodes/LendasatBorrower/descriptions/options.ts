import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ACT_AS_BORROWER_LABEL, ACT_AS_BORROWER_OPTION } from '../transport/actAs';
import { operationMetaOf } from '../transport/apiRoute';

type DisplayOptions = NonNullable<INodeProperties['displayOptions']>;

const onContractCreate = { show: { '/resource': ['contract'], '/operation': ['create'] } };
const onAccountCreate = {
	show: { '/resource': ['account'], '/operation': ['create', 'createWithOwnKey'] },
};

/**
 * The node's parameters followed by its Options collection, whose Act as Borrower is shown exactly
 * for the operations among them that need a Borrower Key (their `keyType` in apiRoute): an operation
 * added to a resource's list gets it, or not, without anything else to change.
 */
export function withOptionsCollection(properties: INodeProperties[]): INodeProperties[] {
	return [...properties, optionsCollectionFor(properties)];
}

/** The Options collection of these operations (see withOptionsCollection). */
export function optionsCollectionFor(properties: INodeProperties[]): INodeProperties {
	const actAs = actAsBorrowerDisplays(properties).map(actAsBorrowerOption);
	return { ...optionsCollection, options: [...actAs, ...(optionsCollection.options ?? [])] };
}

/**
 * Where Act as Borrower shows: one condition for the resources whose every operation needs a
 * Borrower Key, and one per resource that mixes key types, naming its borrower operations.
 */
export function actAsBorrowerDisplays(properties: INodeProperties[]): DisplayOptions[] {
	const byResource = new Map<string, { borrower: string[]; other: number }>();
	for (const property of properties) {
		const resources = property.displayOptions?.show?.resource;
		if (property.name !== 'operation' || !Array.isArray(resources)) continue;
		for (const option of (property.options ?? []) as INodePropertyOptions[]) {
			const borrower = operationMetaOf(option.routing)?.keyType === 'borrower';
			for (const resource of resources.map(String)) {
				const entry = byResource.get(resource) ?? { borrower: [], other: 0 };
				if (borrower) entry.borrower.push(String(option.value));
				else entry.other += 1;
				byResource.set(resource, entry);
			}
		}
	}
	const everyOperation = [...byResource].filter(
		([, entry]) => entry.borrower.length > 0 && entry.other === 0,
	);
	const mixed = [...byResource].filter(([, entry]) => entry.borrower.length > 0 && entry.other > 0);
	return [
		...(everyOperation.length
			? [{ show: { '/resource': everyOperation.map(([resource]) => resource) } }]
			: []),
		...mixed.map(([resource, entry]) => ({
			show: { '/resource': [resource], '/operation': entry.borrower },
		})),
	];
}

function actAsBorrowerOption(displayOptions: DisplayOptions): INodeProperties {
	return {
		displayName: ACT_AS_BORROWER_LABEL,
		name: ACT_AS_BORROWER_OPTION,
		type: 'string',
		typeOptions: { password: true },
		default: '',
		placeholder: 'e.g. {{ $json.api_key }}',
		description:
			"For partners: a borrower's API key to send instead of the credential's, usually an expression reading the api_key field that Account → Create returned. A sealed key (lendasat-sealed:…, the api_key_sealed of Account → Create or Account → Seal API Key) is opened with the credential's Key Sealing Secret. The credential (even a Partner Master Key) still gives the environment and base URL. Leave empty to use the credential's key. The key is never shown in output or errors; an expression that gives no key for an item fails that item. List pickers and the trigger always use the credential's key.",
		displayOptions,
	};
}

/** The Options collection every operation shows: retry settings, and duplicate protection where it applies. */
export const optionsCollection: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'Automatic',
			description:
				'Identifies this contract request, so that it is created only once: sent as the Idempotency-Key header and turned into the client_contract_id the node looks for after a failure. Leave empty for an automatic key that stays the same for this item across every retry of this execution. A key of your own (an expression giving each item its own, e.g. an order number) also stops a re-run of the workflow from creating a second contract.',
			displayOptions: onContractCreate,
		},
		{
			displayName: 'Initial Retry Delay (Ms)',
			name: 'initialDelay',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 500,
			description:
				'Wait before the first retry; each further retry waits about twice as long, with random jitter',
		},
		{
			displayName: 'Max Parallel Requests',
			name: 'maxConcurrent',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 256 },
			default: 32,
			description:
				'How many requests of this API key may be under way at once, across every item and workflow of this n8n process (in queue mode each worker has its own), and how many of this node run may be on the wire at once across all keys (items acting as many borrowers). A request waiting to retry holds no slot; the wait for one counts against its time budget. More only queue up at a rate-limited server.',
		},
		{
			displayName: 'Max Retries',
			name: 'maxRetries',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 100 },
			default: 8,
			description: 'How many times a failed request is tried again. 0 turns retrying off.',
		},
		{
			displayName: 'Max Retry Delay (Ms)',
			name: 'maxDelay',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 30000,
			description:
				"The longest wait between two attempts, also when the server's Retry-After asks for more",
		},
		{
			displayName: 'Retry On',
			name: 'retryOn',
			type: 'multiOptions',
			options: [
				{
					name: 'Network Errors',
					value: 'network',
					description: 'Connection resets, refused connections and timeouts',
				},
				{
					name: 'Rate Limits (429)',
					value: 'rateLimit',
					description: 'Too many requests; the server was not processing this one',
				},
				{
					name: 'Server Unavailable (502, 503, 504)',
					value: 'serverUnavailable',
					description: 'The service or a proxy in front of it is overloaded or restarting',
				},
			],
			default: ['network', 'rateLimit', 'serverUnavailable'],
			description:
				'Which failures to retry. A request that creates something is sent again after a possible delivery only when the node can tell it was not processed (Contract → Create looks for the contract first).',
		},
		{
			displayName: 'Seal API Key',
			name: 'sealApiKey',
			type: 'boolean',
			default: false,
			description:
				"Whether to output the new account's key sealed with the credential's Key Sealing Secret, as api_key_sealed instead of api_key: store that, and give it to Act as Borrower, which opens it. The plain key is then in no output. Needs the credential's Key Sealing Secret.",
			displayOptions: onAccountCreate,
		},
		{
			displayName: 'Send Idempotency Key',
			name: 'sendIdempotencyKey',
			type: 'boolean',
			default: true,
			description:
				'Whether to send the Idempotency-Key header. Contract → Create always sends a client_contract_id and looks for it after a failure; on a server that lists no contracts, a request without the header is not sent again after a server error or a dropped connection.',
			displayOptions: onContractCreate,
		},
		{
			displayName: 'Time Budget per Request (Ms)',
			name: 'timeBudget',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 180000,
			description:
				'The longest one request may take across all its attempts and waits. When it runs out, the error says what each attempt got.',
		},
		{
			displayName: 'Timeout per Attempt (Ms)',
			name: 'attemptTimeout',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30000,
			description:
				'The longest one attempt may take, including receiving the whole answer. Unset, 30 seconds; 2 minutes for the Ark operations, whose answer waits on the Ark server.',
		},
	],
};
