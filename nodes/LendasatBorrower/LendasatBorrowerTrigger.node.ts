import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { DEFAULT_DAYS_AHEAD, daysAheadField, statusesField } from './descriptions/eventFields';
import { lendasatApiTest } from './methods/credentialTest';
import { pollContracts, sampleContract, type ContractEvent } from './trigger/contracts';
import { pollInstallments, sampleInstallment } from './trigger/installments';
import { pollNotifications, sampleNotification } from './trigger/notifications';
import { offerFiltersField } from './descriptions/offerFilters';
import { offerQuery } from './trigger/offerFilters';
import { pollOffers, sampleOffer } from './trigger/offers';
import { listOf } from './trigger/parameters';
import { checkDaysAhead, toNumber } from './validation/checks';

const EVENT_NAMES: Record<string, string> = {
	contractStatusChanged: 'Contract Status Changed',
	installmentDue: 'Installment Due',
	marginCall: 'Margin Call',
	newNotification: 'New Notification',
	newOffer: 'New Loan Offer',
};

export class LendasatBorrowerTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Lendasat Borrower Trigger',
		name: 'lendasatBorrowerTrigger',
		icon: { light: 'file:../../icons/lendasat.svg', dark: 'file:../../icons/lendasat.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		// The editor merges the node and its trigger into one entry, which shows this text: it speaks for both.
		description:
			'Borrow stablecoins against Bitcoin with Lendasat, repay, and start workflows when loans change',
		defaults: { name: 'Lendasat Borrower Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'lendasatApi', required: true, testedBy: 'lendasatApiTest' }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				required: true,
				options: [
					{
						name: 'Contract Status Changed',
						value: 'contractStatusChanged',
						description: 'A contract moved to another status, or a new contract appeared',
					},
					{
						name: 'Installment Due',
						value: 'installmentDue',
						description:
							'An open installment of a paid-out loan falls due within the chosen days (overdue ones included), and again when it becomes late',
					},
					{
						name: 'Margin Call',
						value: 'marginCall',
						description:
							"A contract's liquidation status moved to First Margin Call, Second Margin Call or Liquidated",
					},
					{
						name: 'New Loan Offer',
						value: 'newOffer',
						description: 'A loan offer that matches the filters appeared',
					},
					{
						name: 'New Notification',
						value: 'newNotification',
						description: 'A new entry in the in-app notification feed',
					},
				],
				default: 'contractStatusChanged',
			},
			{
				displayName:
					'The first poll after activation only notes what exists; changes from then on start the workflow. The API has no webhooks, so changes arrive at the next poll.',
				name: 'pollingNotice',
				type: 'notice',
				default: '',
				displayOptions: { hide: { event: ['installmentDue'] } },
			},
			{
				displayName:
					'Each open installment due within Days Ahead starts the workflow once, with the amount and where to pay, and once more when it becomes late. Installments already due when the workflow is activated are included.',
				name: 'installmentNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { event: ['installmentDue'] } },
			},
			daysAheadField(
				{ event: ['installmentDue'] },
				'How many days before its due date an installment starts the workflow. 0: only installments due now or overdue.',
			),
			statusesField(
				{ event: ['contractStatusChanged'] },
				'Start the workflow only for changes to these statuses. Leave empty for every change.',
			),
			offerFiltersField({ event: ['newOffer'] }),
		],
	};

	methods = {
		// n8n looks for the credential test on the first node that names it, which may be this one.
		credentialTest: { lendasatApiTest },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event', 'contractStatusChanged') as string;
		const manual = this.getMode() === 'manual';
		const label = `Lendasat Borrower Trigger (${EVENT_NAMES[event] ?? event})`;
		const records = await pollEvent(this, event, label, manual);
		return records ? [this.helpers.returnJsonArray(records)] : null;
	}
}

/** Manual runs ("Fetch Test Event") return a recent example and never touch the poll cursor. */
async function pollEvent(
	context: IPollFunctions,
	event: string,
	label: string,
	manual: boolean,
): Promise<IDataObject[] | null> {
	switch (event) {
		case 'contractStatusChanged':
		case 'marginCall': {
			const statuses =
				event === 'contractStatusChanged' ? listOf(context.getNodeParameter('statuses', [])) : [];
			const settings = { event: event as ContractEvent, label, statuses };
			return manual
				? await sampleContract(context, settings)
				: await pollContracts(context, settings);
		}
		case 'newOffer': {
			const qs = offerQuery(
				context.getNode(),
				context.getNodeParameter('filters', {}) as IDataObject,
			);
			return manual ? await sampleOffer(context, label, qs) : await pollOffers(context, label, qs);
		}
		case 'newNotification':
			return manual
				? await sampleNotification(context, label)
				: await pollNotifications(context, label);
		case 'installmentDue': {
			const daysAhead = readDaysAhead(context);
			return manual
				? await sampleInstallment(context, label, daysAhead)
				: await pollInstallments(context, label, daysAhead);
		}
		default:
			throw new NodeOperationError(context.getNode(), `Unknown event "${event}"`, {
				description: 'Choose one of the events the trigger offers.',
			});
	}
}

/** Days Ahead as a whole number ≥ 0; an expression can give anything, so it is checked before any request. */
function readDaysAhead(context: IPollFunctions): number {
	const value = context.getNodeParameter('daysAhead', DEFAULT_DAYS_AHEAD);
	const problem = checkDaysAhead(value);
	if (problem) {
		throw new NodeOperationError(context.getNode(), 'Invalid Days Ahead', {
			description: `Days Ahead: ${problem}`,
		});
	}
	return toNumber(value);
}
