/**
 * Runs this package inside n8n's real execution engine (n8n-core), loaded the way n8n loads a
 * community package: through the "n8n" section of package.json, from the built dist/ files.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';

import {
	CredentialTestContext,
	DirectoryLoader,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	PackageDirectoryLoader,
	PollContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialsDecrypted,
	type ICredentialTestFunctions,
	type ICredentialType,
	type IDataObject,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type INode,
	type INodeCredentialTestResult,
	type INodeParameters,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeType,
	type INodeTypes,
	type IRun,
	type IVersionedNodeType,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

export const PACKAGE_NAME = 'n8n-nodes-lendasat';
export const NODE_TYPE = `${PACKAGE_NAME}.lendasatBorrower`;
export const CREDENTIAL_TYPE = 'lendasatApi';

const repositoryRoot = path.resolve(__dirname, '..', '..');

let loading: Promise<PackageDirectoryLoader> | undefined;

/** Loads dist/ through package.json once per test file, as n8n does for an installed package. */
export function loadPackage(): Promise<PackageDirectoryLoader> {
	loading ??= (async () => {
		const loader = new PackageDirectoryLoader(repositoryRoot);
		await loader.loadAll();
		for (const { type } of Object.values(loader.nodeTypes)) {
			DirectoryLoader.applyDeclarativeNodeOptionParameters(type as INodeType);
		}
		return loader;
	})();
	return loading;
}

/** A stand-in for n8n's Manual Trigger, so fixtures exported from n8n run unchanged. */
class ManualTrigger implements INodeType {
	description = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: '',
		defaults: { name: 'Manual Trigger' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(): Promise<INodeExecutionData[][]> {
		return [[{ json: {} }]];
	}
}

class PackageNodeTypes implements INodeTypes {
	constructor(
		private readonly loader: PackageDirectoryLoader,
		private readonly extraNodeTypes: Record<string, INodeType | IVersionedNodeType> = {},
	) {}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		if (nodeType in this.extraNodeTypes) return this.extraNodeTypes[nodeType];
		if (nodeType === 'n8n-nodes-base.manualTrigger') return new ManualTrigger();
		const loaded =
			this.loader.nodeTypes[nodeType.replace(`${PACKAGE_NAME}.`, '')] ??
			this.loader.nodeTypes[nodeType];
		if (!loaded) throw new Error(`Unknown node type ${nodeType}`);
		return loaded.type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = this.getByName(nodeType);
		// Extra node types may be versioned (e.g. n8n's HTTP Request); this package's nodes are not.
		return 'nodeVersions' in type ? type.getNodeType(version) : type;
	}

	getKnownTypes() {
		return {};
	}
}

export interface TestCredential {
	environment?: 'production' | 'development' | 'custom';
	baseUrl?: string;
	keyType?: 'borrower' | 'master';
	apiKey: string;
	/** Seals and opens borrowers' keys. */
	sealingSecret?: string;
	/** n8n's domain restriction, which n8n adds to every credential with authentication. */
	allowedHttpRequestDomains?: 'all' | 'domains' | 'none';
	allowedDomains?: string;
}

/**
 * Hands the test credential to the engine and applies its generic `authenticate` block the way
 * n8n's CredentialsHelper does: expressions resolved against the credential, headers merged.
 */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly credential: TestCredential,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.credentialTypes[typeName]?.authenticate;
		if (!authenticate || typeof authenticate === 'function' || authenticate.type !== 'generic') {
			return requestOptions;
		}
		const headers = (authenticate.properties.headers ?? {}) as Record<string, string>;
		const resolved: IDataObject = {};
		for (const [name, value] of Object.entries(headers)) {
			resolved[name] =
				workflow && node
					? workflow.expression.getParameterValue(value, null, 0, 0, node.name, [], 'internal', {
							$credentials: credentials,
						})
					: value;
		}
		return { ...requestOptions, headers: { ...requestOptions.headers, ...resolved } };
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these tests');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return {
			environment: 'custom',
			keyType: 'borrower',
			...this.credential,
		} as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return [];
	}
}

export interface RunOptions {
	credential: TestCredential;
	/** Items fed into the first Lendasat node; default one empty item. */
	items?: object[];
	/** Fixed execution ID, e.g. to run "the same execution" twice. */
	executionId?: string;
	/**
	 * More node types the workflow may use, by full type name (e.g. n8n's HTTP Request node for the
	 * benchmarks). They run in the same engine; they get no credential from the harness.
	 */
	extraNodeTypes?: Record<string, INodeType | IVersionedNodeType>;
}

export interface RunResult {
	run: IRun;
	/** Output items of a node's last run, by output index (0 = success, 1 = error output). */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error the execution stopped with, if any. */
	error: IRun['data']['resultData']['error'];
}

/** Runs a workflow (nodes + connections, as exported from n8n) through WorkflowExecute. */
/** A workflow as n8n exports it (or a fixture file imported as JSON). */
export interface WorkflowFixture {
	id?: string;
	name?: string;
	nodes: Array<
		Omit<INode, 'position' | 'id' | 'parameters'> & {
			id?: string;
			position: number[];
			parameters: object;
		}
	>;
	/** As exported: connection types are plain strings there. */
	connections: Record<
		string,
		Record<string, Array<Array<{ node: string; type: string; index: number }> | null>>
	>;
	settings?: object;
}

export async function runWorkflow(
	fixture: WorkflowFixture,
	options: RunOptions,
): Promise<RunResult> {
	const workflowJson = fixture as unknown as Pick<IWorkflowBase, 'nodes' | 'connections'> &
		Partial<IWorkflowBase>;
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader, options.extraNodeTypes);
	const credentialTypes = Object.fromEntries(
		Object.entries(loader.credentialTypes).map(([name, { type }]) => [name, type]),
	);
	const nodes = workflowJson.nodes.map((node) => ({
		...node,
		credentials:
			node.type === NODE_TYPE
				? { [CREDENTIAL_TYPE]: { id: '1', name: 'Lendasat test' } }
				: node.credentials,
	}));
	const workflow = new Workflow({
		id: workflowJson.id ?? 'test-workflow',
		name: workflowJson.name ?? 'Test',
		nodes,
		connections: workflowJson.connections,
		active: false,
		nodeTypes,
		settings: workflowJson.settings,
	});

	const executionId = options.executionId ?? randomUUID();
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id: workflow.id,
		name: workflow.name,
		nodes,
		connections: workflowJson.connections,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (fullRunData) => resolve(fullRunData));
	});
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(credentialTypes, options.credential),
		hooks,
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		formBaseUrl: 'http://127.0.0.1/form',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1/form-test',
		mcpBaseUrl: 'http://127.0.0.1/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1/mcp-test',
		variables: {},
		userId: 'test-user',
		executeWorkflow: async () => {
			throw new Error('not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;

	const startNode = nodes.find((node) => node.type === NODE_TYPE) ?? nodes[0];
	const inputItems = (options.items ?? [{}]).map((json) => ({ json: json as IDataObject }));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: startNode,
					data: { main: [inputItems] },
					source: null,
				},
			],
		},
	});
	const execution = new WorkflowExecute(
		additionalData,
		'manual' as WorkflowExecuteMode,
		runExecutionData,
	);
	let run: IRun;
	try {
		await execution.processRunExecutionData(workflow);
		run = await finished;
	} catch (error) {
		// n8n refuses to start a workflow with issues (e.g. an empty required parameter).
		const failed = { data: { resultData: { runData: {}, error } } } as unknown as IRun;
		return { run: failed, error: failed.data.resultData.error, output: () => [] };
	}

	return {
		run,
		error: run.data.resultData.error,
		output(nodeName, outputIndex = 0) {
			const taskData = run.data.resultData.runData[nodeName];
			if (!taskData?.length) return [];
			return taskData[taskData.length - 1].data?.main?.[outputIndex] ?? [];
		},
	};
}

/** A one-node workflow around the Lendasat Borrower node, as a user would build it. */
export function singleNodeWorkflow(
	parameters: object,
	settings: Partial<INode> = {},
): WorkflowFixture {
	return {
		nodes: [
			{
				id: 'b3f1c5e2-0000-4000-8000-000000000001',
				name: 'Lendasat Borrower',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [0, 0] as [number, number],
				parameters: parameters as INodeParameters,
				...settings,
			},
		],
		connections: {},
	};
}

/** Runs the node's credential test function exactly as n8n's credentials tester calls it. */
export async function testCredential(
	credential: TestCredential,
): Promise<INodeCredentialTestResult> {
	const loader = await loadPackage();
	const nodeType = loader.nodeTypes.lendasatBorrower.type as INodeType;
	const testedBy = nodeType.description.credentials?.find(
		(c) => c.name === CREDENTIAL_TYPE,
	)?.testedBy;
	if (typeof testedBy !== 'string')
		throw new Error('the node does not name a credential test function');
	const test = nodeType.methods?.credentialTest?.[testedBy];
	if (!test) throw new Error(`credential test ${testedBy} is missing`);
	const decrypted: ICredentialsDecrypted = {
		id: '1',
		name: 'Lendasat test',
		type: CREDENTIAL_TYPE,
		data: {
			environment: 'custom',
			keyType: 'borrower',
			...credential,
		} as ICredentialDataDecryptedObject,
	};
	const context = new CredentialTestContext() as unknown as ICredentialTestFunctions;
	return await test.call(context, decrypted);
}

/**
 * Runs one of the node's listSearch methods (a resource locator's "From List") the way n8n's editor
 * does: through n8n-core's LoadOptionsContext, on a node holding the test credential.
 */
export async function searchList(
	methodName: string,
	filter: string | undefined,
	credential: TestCredential,
	parameters: IDataObject = { resource: 'offer', operation: 'get' },
): Promise<INodeListSearchResult> {
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const method = nodeTypes.getByNameAndVersion(NODE_TYPE).methods?.listSearch?.[methodName];
	if (!method) throw new Error(`the node has no listSearch method ${methodName}`);
	const credentialTypes = Object.fromEntries(
		Object.entries(loader.credentialTypes).map(([name, { type }]) => [name, type]),
	);
	const node = {
		id: 'b3f1c5e2-0000-4000-8000-000000000001',
		name: 'Lendasat Borrower',
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Lendasat test' } },
	} as INode;
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(credentialTypes, credential),
		currentNodeParameters: parameters,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		variables: {},
		userId: 'test-user',
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new LoadOptionsContext(
		workflow,
		workflow.getNode(node.name) ?? node,
		additionalData,
		'parameters.offerId',
	);
	return await method.call(context as unknown as ILoadOptionsFunctions, filter);
}

export const TRIGGER_NODE_TYPE = `${PACKAGE_NAME}.lendasatBorrowerTrigger`;

export interface PollOptions {
	credential: TestCredential;
	/** 'trigger': a scheduled poll of an active workflow; 'manual': the editor's "Fetch Test Event". */
	mode?: 'trigger' | 'manual';
	/** The node's static data. Pass the same object to every poll, as n8n keeps it for an active workflow. */
	staticData?: IDataObject;
}

export interface PollResult {
	/** The items the poll emitted, or null when it found nothing new. */
	items: INodeExecutionData[] | null;
	/** What the poll threw, if it failed. */
	error?: Error;
}

/**
 * Runs the Lendasat Borrower Trigger's poll() once through n8n-core's PollContext, as n8n's poll
 * scheduler (mode 'trigger') and the editor's "Fetch Test Event" (mode 'manual') do. The node's
 * static data is the object passed in, so a test sees exactly what a poll leaves behind.
 */
export async function pollTrigger(
	parameters: IDataObject,
	options: PollOptions,
): Promise<PollResult> {
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const nodeType = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE);
	if (!nodeType.poll) throw new Error('the trigger has no poll method');
	const credentialTypes = Object.fromEntries(
		Object.entries(loader.credentialTypes).map(([name, { type }]) => [name, type]),
	);
	const mode = options.mode ?? 'trigger';
	const node = {
		id: 'b3f1c5e2-0000-4000-8000-0000000000f1',
		name: 'Lendasat Borrower Trigger',
		type: TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: '1', name: 'Lendasat test' } },
	} as INode;
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'Test',
		nodes: [node],
		connections: {},
		active: mode === 'trigger',
		nodeTypes,
	});
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(credentialTypes, options.credential),
		executionId: undefined,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		variables: {},
		userId: 'test-user',
	} as unknown as IWorkflowExecuteAdditionalData;
	const staticData = options.staticData ?? {};
	const context = new PollContext(
		workflow,
		workflow.getNode(node.name) ?? node,
		additionalData,
		mode,
		mode === 'manual' ? 'manual' : 'activate',
		undefined,
		undefined,
		undefined,
		undefined,
		() => staticData,
	);
	try {
		const result = await nodeType.poll.call(context);
		return { items: result?.[0] ?? null };
	} catch (error) {
		return { items: null, error: error as Error };
	}
}
