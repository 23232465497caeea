import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { formatMoney, getPickerList, searchResults, type ListPicker } from './listSearch';
import { MAX_PAGE_SIZE } from '../transport/pagination';
import { CONTRACTS_PATH } from '../resources/contract/shared';

const CONTRACT_LIST: ListPicker = { label: 'Contract list', idName: 'contract ID' };

/**
 * The listSearch method behind the contract "From List" mode: the key's most recently updated
 * contracts (one page of up to 100), narrowed by the search text.
 */
export async function searchContracts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const page = (await getPickerList(
		this,
		CONTRACT_LIST,
		{
			path: CONTRACTS_PATH,
			qs: { sort_by: 'updated_at', sort_order: 'desc', limit: MAX_PAGE_SIZE },
		},
		'page',
	)) as IDataObject;
	const contracts = page.data as IDataObject[];
	const searched = (contract: IDataObject) => [contract.id, contract.status, contract.loan_asset];
	return { results: searchResults(contracts, filter, searched, describeContract) };
}

/**
 * One line per contract, e.g. `Requested · UsdcPol · $1,500 · 30 days · 2026-11-20 (7a3f…)`:
 * status, asset, amount, duration, expiry date and the start of the ID. Missing fields are left out.
 */
export function describeContract(contract: IDataObject): string {
	const parts = [
		typeof contract.status === 'string' ? contract.status : undefined,
		typeof contract.loan_asset === 'string' ? contract.loan_asset : undefined,
		typeof contract.loan_amount === 'number'
			? formatMoney(contract.loan_asset, contract.loan_amount)
			: undefined,
		typeof contract.duration_days === 'number' ? `${contract.duration_days} days` : undefined,
		typeof contract.expiry === 'string' ? contract.expiry.slice(0, 10) : undefined,
	].filter((part): part is string => Boolean(part));
	return `${parts.join(' · ')} (${String(contract.id).slice(0, 4)}…)`;
}
