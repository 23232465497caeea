import type {
	IDataObject,
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { returnAllAndLimit } from '../../shared/fields';
import { apiRoute } from '../../shared/transport';

const routing = apiRoute(
	{ resource: 'apiKey', operation: 'getAll', label: 'API Key → Get Many', keyType: 'borrower' },
	{ method: 'GET', url: '/api/keys' },
	{ postReceive: [oneItemPerArrayEntry] },
);

export const apiKeyGetAllOperation: INodePropertyOptions = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many API keys',
	description: "List this account's API keys: ID, description and creation time (never the key itself)",
	routing: {
		...routing,
		// The API sends the whole list at once; n8n cuts it to the Limit after receiving.
		output: { ...routing.output, maxResults: '={{ $parameter.returnAll ? undefined : $parameter.limit }}' },
	},
};

export const apiKeyGetAllFields: INodeProperties[] = returnAllAndLimit({
	resource: ['apiKey'],
	operation: ['getAll'],
});

/**
 * The body is a plain JSON array; n8n splits an array into items only when an operation has no
 * postReceive of its own, and every operation has the error mapper.
 */
async function oneItemPerArrayEntry(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
): Promise<INodeExecutionData[]> {
	if (!Array.isArray(response.body)) return items;
	return (response.body as IDataObject[]).map((json) => ({ json }));
}
