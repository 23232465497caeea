import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import {
	checkEmail,
	describeValue,
	isRecord,
	type ValidationProblem,
} from '../../validation/checks';
import { requireText } from '../../validation/parameters';

const showOnlyForConnect = { show: { resource: ['bringin'], operation: ['connect'] } };

/**
 * hub 0.8.2 bringin.rs:214-240: Lendasat asks Bringin to connect the e-mail address. An existing
 * Bringin user gets an e-mail to approve the connection and the answer has no `signup_url`; anyone else
 * is e-mailed a sign-up link, which the answer carries too. Bringin tells Lendasat once it is done
 * (a callback), after which Bringin → Get Status says `has_key: true`.
 */
export const bringinConnectOperation: INodePropertyOptions = {
	name: 'Connect',
	value: 'connect',
	action: 'Connect a Bringin account',
	description:
		'Ask Bringin to connect the account with this e-mail address: Bringin e-mails it a link to approve, or to sign up first. Output: {bringin_email, signup_url, next_step}; signup_url is set when the address has no Bringin account yet. Each run sends another e-mail.',
	routing: apiRoute(
		{
			label: 'Bringin → Connect',
			toolDescription:
				'Connect a Bringin account: Bringin e-mails the address a link to approve the connection or to sign up; returns the sign-up link when there is one',
			repeat: 'once',
			keyType: 'borrower',
			expects: 'object',
			answer: connectAnswer,
			errors: [
				{
					statusCodes: [400],
					text: /^invalid email/i,
					message: 'Lendasat refused the e-mail address',
					hint: 'Lendasat takes plain ASCII addresses of the form name@example.com (no accents or other letters outside a–z).',
				},
				{
					statusCodes: [500],
					text: /^something went wrong/i,
					message: 'Lendasat could not reach Bringin, or Bringin refused',
					hint: "Lendasat passes the request on to Bringin, which failed. Bringin's e-mail may still have been sent: check the inbox before running again.",
				},
			],
		},
		{ method: 'POST', url: '/api/bringin/connect' },
		{ prepare: [buildConnectRequest], finish: [describeNextStep] },
	),
};

export const bringinConnectFields: INodeProperties[] = [
	{
		displayName: 'Bringin Email',
		name: 'bringinEmail',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'name@email.com',
		description: 'The e-mail address of the Bringin account to connect, or to sign up with',
		displayOptions: showOnlyForConnect,
	},
];

async function buildConnectRequest(
	this: IExecuteSingleFunctions,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	const email = requireText(
		this,
		'Bringin Email',
		this.getNodeParameter('bringinEmail'),
		checkBringinEmail,
	);
	return { ...request, body: { bringin_email: email } };
}

/** hub 0.8.2 utils.rs:58-90 `is_valid_email` takes only ASCII letters, digits and symbols. */
function checkBringinEmail(value: unknown): ValidationProblem {
	const problem = checkEmail(value);
	if (problem || /^[\x21-\x7e]+$/.test(String(value).trim())) return problem;
	return `${describeValue(String(value).trim())} holds letters outside a–z; Lendasat takes only plain ASCII addresses like name@example.com.`;
}

/** `PostConnectWithBringinResponse {signup_url?}` (bringin.rs:237-240): a link when there is one. */
function connectAnswer(body: unknown): string | undefined {
	const errorBody = liveErrorBodyWithout(body, 'signup_url');
	if (errorBody) return errorBody;
	const url = isRecord(body) ? body.signup_url : undefined;
	if (url === undefined || url === null) return undefined;
	return typeof url === 'string' && /^https?:\/\/\S+$/i.test(url)
		? undefined
		: `its signup_url ${describeValue(url)} is not a web address`;
}

async function describeNextStep(
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const email = String(this.getNodeParameter('bringinEmail')).trim();
	return items.map((item) => {
		const signupUrl = typeof item.json.signup_url === 'string' ? item.json.signup_url : null;
		return {
			...item,
			json: {
				bringin_email: email,
				signup_url: signupUrl,
				next_step: signupUrl
					? `${email} has no Bringin account yet: sign up at signup_url (Bringin e-mailed the link too). Bringin → Get Status says has_key true once it is done.`
					: `Bringin e-mailed ${email} a link to approve the connection. Bringin → Get Status says has_key true once it is approved.`,
			},
		};
	});
}
