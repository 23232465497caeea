import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import { accountDescription } from './resources/account';
import { apiKeyDescription } from './resources/apiKey';
import { bringinDescription } from './resources/bringin';
import { cardDescription } from './resources/card';
import { contractDescription } from './resources/contract';
import { disputeDescription } from './resources/dispute';
import { loanApplicationDescription } from './resources/loanApplication';
import { notificationDescription } from './resources/notification';
import { offerDescription } from './resources/offer';
import { priceDescription } from './resources/price';
import { profileDescription } from './resources/profile';
import { userDescription } from './resources/user';
import { searchContracts } from './methods/contractPicker';
import { lendasatApiTest } from './methods/credentialTest';
import { searchLoanOffers } from './methods/offerPicker';
import { withOptionsCollection } from './descriptions/options';
import { withToolDescriptions } from './descriptions/toolDescriptions';

export class LendasatBorrower implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lendasat Borrower',
		name: 'lendasatBorrower',
		icon: { light: 'file:../../icons/lendasat.svg', dark: 'file:../../icons/lendasat.dark.svg' },
		group: ['transform'],
		// 1.1: Simplify gives a contract's funding, next installment and repayment address.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Borrow stablecoins against Bitcoin with Lendasat, repay, and start workflows when loans change',
		defaults: { name: 'Lendasat Borrower' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'lendasatApi', required: true, testedBy: 'lendasatApiTest' }],
		// Each operation's routing hands its request to the one transport, which knows the base URL,
		// the key and the HTTP client's settings; n8n needs no request defaults of its own.
		requestDefaults: {},
		// The Options collection comes last; which operations offer Act as Borrower follows from their key type.
		properties: withToolDescriptions(
			withOptionsCollection([
				{
					displayName: 'Resource',
					name: 'resource',
					type: 'options',
					noDataExpression: true,
					options: [
						{
							name: 'Account',
							value: 'account',
							description: 'Borrower accounts created by a partner',
						},
						{ name: 'API Key', value: 'apiKey', description: "The borrower's own API keys" },
						{
							name: 'Bringin',
							value: 'bringin',
							description: 'The Bringin account a Bringin loan pays out to',
						},
						{
							name: 'Card',
							value: 'card',
							description: 'PayWithMoon cards a PayWithMoon loan loads',
						},
						{
							name: 'Contract',
							value: 'contract',
							description: 'Loan contracts and contract requests',
						},
						{
							name: 'Dispute',
							value: 'dispute',
							description: "A contract's disputes, settled by Lendasat's support with the lender",
						},
						{
							name: 'Loan Application',
							value: 'loanApplication',
							description: 'Your own loan terms, posted for lenders to take',
						},
						{
							name: 'Notification',
							value: 'notification',
							description: 'The in-app notification feed and which alerts the account gets',
						},
						{ name: 'Offer', value: 'offer', description: 'Loan offers from lenders' },
						{ name: 'Price', value: 'price', description: 'The price of bitcoin over time' },
						{
							name: 'Profile',
							value: 'profile',
							description: 'Public profiles of lenders and borrowers',
						},
						{ name: 'User', value: 'user', description: 'The account the key belongs to' },
					],
					default: 'contract',
				},
				...accountDescription,
				...apiKeyDescription,
				...bringinDescription,
				...cardDescription,
				...contractDescription,
				...disputeDescription,
				...loanApplicationDescription,
				...notificationDescription,
				...offerDescription,
				...priceDescription,
				...profileDescription,
				...userDescription,
			]),
		),
	};

	methods = {
		credentialTest: { lendasatApiTest },
		listSearch: { searchContracts, searchLoanOffers },
	};
}
