import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { operationMetaOf } from '../transport/apiRoute';

/**
 * What an AI agent is told about each operation. n8n describes a tool to the model with its
 * `toolDescription` parameter; a node without one gets n8n's own "Set Automatically" switch, which
 * tells the model only the action ("Create a contract in Lendasat Borrower"). So the node declares
 * a Description per operation, shown only on the tool (`@tool`), holding the operation's
 * `toolDescription`: what it does, what it changes and what it returns. The user may edit it like
 * any parameter; the node's name on the canvas keeps the short action.
 */
export function withToolDescriptions(properties: INodeProperties[]): INodeProperties[] {
	const descriptions = properties.flatMap((property) => {
		const resources = property.displayOptions?.show?.resource;
		if (property.name !== 'operation' || !Array.isArray(resources)) return [];
		return ((property.options ?? []) as INodePropertyOptions[]).flatMap((option) => {
			const meta = operationMetaOf(option.routing);
			return meta
				? [toolDescriptionOf(resources.map(String), String(option.value), meta.toolDescription)]
				: [];
		});
	});
	return [...descriptions, ...properties];
}

function toolDescriptionOf(resources: string[], operation: string, text: string): INodeProperties {
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 3 },
		required: true,
		default: text,
		description:
			'What the AI agent is told this tool does. The text given is what the operation does, changes and returns; edit it to add your own limits.',
		displayOptions: { show: { '@tool': [true], resource: resources, operation: [operation] } },
	};
}
