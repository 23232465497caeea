/**
 * A partner's borrowers, made as a partner makes them: POST /api/create-api-account with the master
 * key (Account → Create) for each, then contracts given to them through the admin routes. Over HTTP
 * only, so that a sandbox in another process (the benchmark's) serves as well as one in this process.
 */
import { onboardedAccount, type AdminContractInput, type OnboardedBorrower } from './admin';

export type { OnboardedBorrower };

/** `count` borrower accounts, each given one contract per entry of `contracts` (in that status, etc.). */
export async function onboardBorrowers(
	sandboxUrl: string,
	masterKey: string,
	count: number,
	contracts: AdminContractInput[] = [],
	names: (index: number) => string = (index) => onboardedAccount(index).name,
): Promise<OnboardedBorrower[]> {
	const borrowers: OnboardedBorrower[] = [];
	for (let index = 0; index < count; index++) {
		const name = names(index);
		const account = (await post(
			sandboxUrl,
			'/api/create-api-account',
			{ ...onboardedAccount(index), name },
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

/**
 * Benchmark setup only: the same borrowers (default names) made in one admin request, POST
 * /__admin/borrowers, instead of two requests each: the benchmark's 50,000 in seconds. The accounts
 * are stored as the API route stores them, but none of its checks run; tests use onboardBorrowers.
 */
export async function onboardBorrowersInBulk(
	sandboxUrl: string,
	masterKey: string,
	count: number,
	contracts: AdminContractInput[] = [],
): Promise<OnboardedBorrower[]> {
	return (await post(sandboxUrl, '/__admin/borrowers', {
		master_key: masterKey,
		count,
		contracts,
	})) as OnboardedBorrower[];
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
