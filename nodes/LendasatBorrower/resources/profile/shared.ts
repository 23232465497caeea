import type {
	IExecuteSingleFunctions,
	IHttpRequestOptions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { apiRoute } from '../../transport/apiRoute';
import { liveErrorBodyWithout } from '../../transport/answer';
import { describeValue, isRecord } from '../../validation/checks';
import { requireIssuedId } from '../../validation/parameters';

/** A public profile as Lendasat shows it to everyone: a lender's (`LenderStats`) or a borrower's (`BorrowerStats`). */
interface ProfileKind {
	/** The operation's value, e.g. `getLender`. */
	operation: string;
	/** The parameter holding the ID, e.g. `lenderId`. */
	parameter: string;
	/** "Lender" or "Borrower". */
	who: 'Lender' | 'Borrower';
	/** The path segment: `/api/profiles/{segment}/{id}`. */
	segment: 'lenders' | 'borrowers';
	/** Where a workflow finds the ID. */
	source: string;
	/** The fields of the answer, as the option's description lists them. */
	fields: string;
}

/**
 * The option and the field of one profile operation. IDs are UUIDs as text: hub 0.8.2 takes the path
 * segment as a String (routes/lender_profiles.rs:41, borrower_profiles.rs:41), but every borrower and
 * lender ID is `Uuid::new_v4().to_string()` in a CHAR(36) column (db/borrowers.rs:58, db/lenders.rs:33,
 * migrations/20240816042737_initial_migration.up.sql:16,32), so anything else cannot exist.
 */
export function profileOperation(kind: ProfileKind): {
	option: INodePropertyOptions;
	fields: INodeProperties[];
} {
	const who = kind.who.toLowerCase();
	const label = `Profile → Get ${kind.who}`;
	return {
		option: {
			name: `Get ${kind.who}`,
			value: kind.operation,
			action: `Get a ${who} profile`,
			description: `Get the public profile of a ${who}: ${kind.fields}. ${kind.source}.`,
			routing: apiRoute(
				{
					label,
					toolDescription: `Get a ${who}'s public profile by ID: name, joined date and number of successful contracts${kind.who === 'Lender' ? ', and whether Lendasat vetted the lender' : ''}; changes nothing`,
					keyType: 'borrower',
					expects: 'object',
					answer: profileAnswer,
					notFound: { parameter: kind.parameter, label: who },
				},
				{ method: 'GET', url: `/api/profiles/${kind.segment}/{id}` },
				{ prepare: [toProfile(kind)] },
			),
		},
		fields: [
			{
				displayName: `${kind.who} ID`,
				name: kind.parameter,
				type: 'string',
				required: true,
				default: '',
				placeholder: 'e.g. 3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e',
				description: `The UUID of the ${who}. ${kind.source}.`,
				displayOptions: { show: { resource: ['profile'], operation: [kind.operation] } },
			},
		],
	};
}

function toProfile(kind: ProfileKind) {
	return async function (
		this: IExecuteSingleFunctions,
		request: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const id = requireIssuedId(this, `${kind.who} ID`, this.getNodeParameter(kind.parameter));
		return { ...request, url: `/api/profiles/${kind.segment}/${encodeURIComponent(id)}` };
	};
}

/** A profile is of use only with its ID, a name and a whole number of successful contracts. */
export function profileAnswer(body: unknown): string | undefined {
	const errorBody = liveErrorBodyWithout(body, 'id');
	if (errorBody) return errorBody;
	const profile = isRecord(body) ? body : {};
	if (typeof profile.id !== 'string' || profile.id === '') return 'it holds no profile ID';
	if (typeof profile.name !== 'string')
		return `its name ${describeValue(profile.name)} is not text`;
	if (!Number.isSafeInteger(profile.successful_contracts)) {
		return `its successful_contracts ${describeValue(profile.successful_contracts)} is not a whole number`;
	}
	return undefined;
}
