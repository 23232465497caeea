/**
 * A partner's borrowers, made as a partner makes them: POST /api/create-api-account with the master
 * key (Account → Create) for each, then contracts given to them through the admin routes. Over HTTP
 * only, so that a sandbox in another process (the benchmark's) serves as well as one in this process.
 */
import type { AdminContractInput } from './admin';

export interface OnboardedBorrower {
	/** The account's user id: the partner's own reference in the tests, the demo and the benchmark. */
	id: string;
	name: string;
	/** The borrower's key, as Account → Create returned it. */
	api_key: string;
	/** The contracts the admin routes gave it, in the order asked. */
	contracts: string[];
}

/** `count` borrower accounts, each given one contract per entry of `contracts` (in that status, etc.). */
export async function onboardBorrowers(
	sandboxUrl: string,
	masterKey: string,
	count: number,
	contracts: AdminContractInput[] = [],
	names: (index: number) => string = (index) => `Borrower ${index + 1}`,
): Promise<OnboardedBorrower[]> {
	const borrowers: OnboardedBorrower[] = [];
	for (let index = 0; index < count; index++) {
		const name = names(index);
		const account = (await post(
			sandboxUrl,
			'/api/create-api-account',
			{ name, email: `borrower-${index + 1}@partner.example`, timezone: 'Europe/Vienna' },
			masterKey,
		)) as { id: string; api_key: string };
		const ids: string[] = [];
		for (const contract of contracts) {
			const made = (await post(sandboxUrl, '/__admin/contracts', {
				...contract,
				api_key: account.api_key,
			})) as { id: string };
			ids.push(made.id);
		}
		borrowers.push({ id: account.id, name, api_key: account.api_key, contracts: ids });
	}
	return borrowers;
}

async function post(
	sandboxUrl: string,
	path: string,
	body: object,
	key?: string,
): Promise<unknown> {
	const response = await fetch(`${sandboxUrl}${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
		body: JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 200)}`);
	return JSON.parse(text);
}
