import type { IAuthenticateGeneric, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';

export class LendasatApi implements ICredentialType {
	name = 'lendasatApi';

	displayName = 'Lendasat API';

	icon: Icon = { light: 'file:../icons/lendasat.svg', dark: 'file:../icons/lendasat.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-lendasat#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Environment',
			name: 'environment',
			type: 'options',
			options: [
				{
					name: 'Production',
					value: 'production',
					description: 'Real Bitcoin and stablecoins (https://apiborrow.lendasat.com)',
				},
				{
					name: 'Development',
					value: 'development',
					description:
						'Bitcoin test network, no real funds (https://apiborrowersignet.lendasat.com)',
				},
				{
					name: 'Custom',
					value: 'custom',
					description: 'Another base URL, such as the local sandbox or a self-hosted backend',
				},
			],
			default: 'production',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:7337',
			description: 'Address of the borrower API, without the /api path',
			required: true,
			displayOptions: { show: { environment: ['custom'] } },
		},
		{
			displayName: 'Key Type',
			name: 'keyType',
			type: 'options',
			options: [
				{
					name: 'Borrower Key',
					value: 'borrower',
					description: 'For borrower operations: offers, contracts, API keys, notifications',
				},
				{
					name: 'Partner Master Key',
					value: 'master',
					description: 'For partners: creates borrower accounts for their own users',
				},
			],
			default: 'borrower',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
		},
		{
			displayName: 'Key Sealing Secret',
			name: 'sealingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				"Optional. Seals borrowers' API keys so that your store and n8n's executions hold them only sealed (Account → Create's Seal API Key, Account → Seal API Key), and opens them in Act as Borrower. At least 32 characters: generate one, e.g. with openssl rand -hex 32, and keep a copy. Changing or losing it makes every key sealed with it unreadable.",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
			},
		},
	};
}
