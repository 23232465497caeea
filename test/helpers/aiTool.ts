import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodePropertyOptions,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { LendasatBorrower } from '../../nodes/LendasatBorrower/LendasatBorrower.node';

/** The Lendasat Borrower node's description, as n8n loads it. */
export const nodeDescription = new LendasatBorrower().description;

/** Every operation of the node: resource, value and its option. */
export const operations = nodeDescription.properties
	.filter((property) => property.name === 'operation')
	.flatMap((property) =>
		(property.options as INodePropertyOptions[]).map((option) => ({
			resource: String(property.displayOptions?.show?.resource?.[0]),
			operation: String(option.value),
			option,
		})),
	);

/**
 * The node as n8n 2.x and 1.x offer it to an AI Agent (n8n's convertNodeToAiTool): the same
 * description under the name "…Tool". n8n adds its own "Tool Description" switch only to a node
 * without a toolDescription parameter, which this one has.
 */
export const toolDescriptionOfNode: INodeTypeDescription = {
	...nodeDescription,
	name: `${nodeDescription.name}Tool`,
	displayName: `${nodeDescription.displayName} Tool`,
};

/** A node's parameters as n8n's engine resolves them before it runs: the defaults filled in. */
export function resolvedParameters(
	type: INodeTypeDescription,
	parameters: INodeParameters,
): INodeParameters {
	const node = {
		name: 'Lendasat',
		parameters,
		type: type.name,
		typeVersion: 1.1,
	} as unknown as INode;
	return NodeHelpers.getNodeParameters(type.properties, parameters, true, false, node, type) ?? {};
}

/** What the model reads about the tool, as n8n-core's createNodeAsTool builds it. */
export function whatTheModelReads(parameters: INodeParameters): string {
	const node = {
		name: 'Lendasat',
		parameters: resolvedParameters(toolDescriptionOfNode, parameters),
		type: toolDescriptionOfNode.name,
		typeVersion: 1.1,
	} as unknown as INode;
	return NodeHelpers.getToolDescriptionForNode(node, {
		description: toolDescriptionOfNode,
	} as unknown as INodeType);
}
