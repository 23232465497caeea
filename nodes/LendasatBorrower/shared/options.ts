import type { INodeProperties } from 'n8n-workflow';

const onContractCreate = { show: { '/resource': ['contract'], '/operation': ['create'] } };

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
				'Sent as the Idempotency-Key header so that a retried request cannot create a second contract. Leave empty for an automatic key that stays the same for this item across every retry of this execution. An expression must give each item its own key.',
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
				'Which failures to retry. Requests that create something are retried after a possible delivery only when they carry an idempotency key.',
		},
		{
			displayName: 'Send Idempotency Key',
			name: 'sendIdempotencyKey',
			type: 'boolean',
			default: true,
			description:
				'Whether to send an Idempotency-Key header. Without it a contract request is not retried after a server error or a dropped connection, because it may have been created already.',
			displayOptions: onContractCreate,
		},
	],
};
