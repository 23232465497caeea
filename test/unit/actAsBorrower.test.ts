import { NodeHelpers, type INodeProperties, type INodePropertyOptions } from 'n8n-workflow';

import { LendasatBorrower } from '../../nodes/LendasatBorrower/LendasatBorrower.node';
import {
	actAsBorrowerDisplays,
	optionsCollectionFor,
} from '../../nodes/LendasatBorrower/descriptions/options';
import { apiRoute, operationMetaOf } from '../../nodes/LendasatBorrower/transport/apiRoute';
import { requireConnection } from '../../nodes/LendasatBorrower/transport/connection';
import { keyIdentity } from '../../nodes/LendasatBorrower/transport/exchange';
import { redactSecrets } from '../../nodes/LendasatBorrower/transport/errors';

const description = new LendasatBorrower().description;
const node = { name: 'Lendasat', typeVersion: 1.1, type: 'lendasatBorrower', parameters: {} };

/** Every resource/operation of the node with the key type its routing declares. */
function operations(properties: INodeProperties[] = description.properties) {
	return properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.options as INodePropertyOptions[]).flatMap((option) =>
				(property.displayOptions?.show?.resource as string[]).map((resource) => ({
					resource,
					operation: String(option.value),
					keyType: operationMetaOf(option.routing)?.keyType,
				})),
			),
		);
}

/** Whether n8n keeps Act as Borrower for this operation (what the editor shows and a run reads). */
function keepsActAs(properties: INodeProperties[], resource: string, operation: string): boolean {
	const values = NodeHelpers.getNodeParameters(
		properties,
		{ resource, operation, options: { borrowerApiKey: 'lndst_sk_0123456789ab_x' } },
		false,
		false,
		node,
		{ ...description, properties },
	);
	return (values?.options as Record<string, unknown> | undefined)?.borrowerApiKey !== undefined;
}

describe('Act as Borrower (API Key) is offered exactly for the operations that need a Borrower Key', () => {
	it('every operation of the node: shown when its keyType is borrower, never for the accounts, the lender list or the prices', () => {
		const all = operations();
		expect(all.length).toBeGreaterThanOrEqual(15);
		// These take either key: Lendasat asks none for prices, a lender's offers or a BYOK account;
		// Seal API Key sends the key it seals.
		expect(
			all
				.filter(({ keyType }) => keyType !== 'borrower')
				.map(({ resource, operation }) => `${resource}/${operation}`),
		).toEqual([
			'account/create',
			'account/createWithOwnKey',
			'account/sealApiKey',
			'offer/getByLender',
			'price/getHistory',
		]);
		for (const { resource, operation, keyType } of all) {
			expect([
				`${resource}/${operation}`,
				keepsActAs(description.properties, resource, operation),
			]).toEqual([`${resource}/${operation}`, keyType === 'borrower']);
		}
	});

	it('keeps the other options and their defaults as they were', () => {
		const options = description.properties.find((property) => property.name === 'options');
		const names = (options?.options as INodeProperties[]).map((option) => option.name);
		// Once for the resources whose every operation needs a Borrower Key, once for Offer's that do.
		expect(names).toEqual([
			'borrowerApiKey',
			'borrowerApiKey',
			'idempotencyKey',
			'initialDelay',
			'maxConcurrent',
			'maxRetries',
			'maxDelay',
			'retryOn',
			'sealApiKey',
			'sendIdempotencyKey',
			'timeBudget',
			'attemptTimeout',
		]);
		expect(
			Object.fromEntries(
				(options?.options as INodeProperties[]).map((option) => [option.name, option.default]),
			),
		).toEqual({
			borrowerApiKey: '',
			idempotencyKey: '',
			initialDelay: 500,
			maxConcurrent: 32,
			maxRetries: 8,
			maxDelay: 30000,
			retryOn: ['network', 'rateLimit', 'serverUnavailable'],
			sealApiKey: false,
			sendIdempotencyKey: true,
			timeBudget: 180000,
			attemptTimeout: 30000,
		});
		const actAs = (options?.options as INodeProperties[])[0];
		expect(actAs).toMatchObject({
			displayName: 'Act as Borrower (API Key)',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		});
	});

	it('follows a resource that mixes key types: one more condition naming its borrower operations', () => {
		const route = (keyType: 'master' | 'borrower') =>
			apiRoute(
				{
					label: 'X → Y',
					toolDescription: 'Does y to an x',
					keyType,
					expects: 'object',
				},
				{ method: 'GET', url: '/api/x' },
			);
		const operationOf = (
			resource: string,
			options: Array<[string, 'master' | 'borrower']>,
		): INodeProperties => ({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			displayOptions: { show: { resource: [resource] } },
			options: options.map(([value, keyType]) => ({ name: value, value, routing: route(keyType) })),
			default: options[0][0],
		});
		const properties = [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				options: [],
				default: 'a',
			} as INodeProperties,
			operationOf('a', [['get', 'borrower']]),
			operationOf('b', [['create', 'master']]),
			operationOf('c', [
				['create', 'master'],
				['get', 'borrower'],
				['list', 'borrower'],
			]),
		];
		expect(actAsBorrowerDisplays(properties)).toEqual([
			{ show: { '/resource': ['a'] } },
			{ show: { '/resource': ['c'], '/operation': ['get', 'list'] } },
		]);
		const withOptions = [...properties, optionsCollectionFor(properties)];
		expect(
			[
				['a', 'get'],
				['b', 'create'],
				['c', 'create'],
				['c', 'get'],
				['c', 'list'],
			].map(([resource, operation]) => keepsActAs(withOptions, resource, operation)),
		).toEqual([true, false, false, true, true]);
	});
});

describe('the connection of an operation acting as a borrower', () => {
	const asker = {
		node: node as never,
		label: 'User → Get Me',
		keyType: 'borrower' as const,
		itemIndex: 0,
	};
	const masterCredential = {
		environment: 'custom',
		baseUrl: 'http://127.0.0.1:7337',
		keyType: 'master',
		apiKey: 'las-partner-master',
	};
	const actKey = 'lndst_sk_0123456789ab_"act\\as+me';

	it("sends the act-as key as a Borrower Key to the credential's base URL; both keys are secret in every form", () => {
		const connection = requireConnection(masterCredential, { ...asker, actAs: actKey });
		expect(connection).toMatchObject({
			apiKey: actKey,
			keyType: 'borrower',
			baseUrl: 'http://127.0.0.1:7337',
			actingAsBorrower: true,
		});
		const text = `a ${actKey} b ${JSON.stringify(actKey).slice(1, -1)} c ${encodeURIComponent(actKey)} d las-partner-master`;
		expect(redactSecrets(text, connection.secrets)).toBe(
			'a [redacted] b [redacted] c [redacted] d [redacted]',
		);
	});

	it("paces and caps the act-as key apart from the credential's key and from other borrowers", () => {
		const credentialOwn = requireConnection(
			{ ...masterCredential, keyType: 'borrower', apiKey: 'lndst_sk_0123456789ab_own' },
			asker,
		);
		const acting = requireConnection(masterCredential, { ...asker, actAs: actKey });
		const other = requireConnection(masterCredential, { ...asker, actAs: `${actKey}2` });
		expect(
			new Set([keyIdentity(credentialOwn), keyIdentity(acting), keyIdentity(other)]).size,
		).toBe(3);
		expect(keyIdentity(acting)).toBe(
			keyIdentity(requireConnection(masterCredential, { ...asker, actAs: actKey })),
		);
		expect(keyIdentity(acting)).not.toContain(actKey);
	});

	it('refuses a key that would be sent mangled, without showing it', () => {
		expect(() => requireConnection(masterCredential, { ...asker, actAs: 'lndst_sk_a b' })).toThrow(
			'Invalid Act as Borrower (API Key) [item 0]',
		);
	});
});
