import type { IDataObject, IExecutePaginationFunctions } from 'n8n-workflow';

import { liveErrorBodyWithout } from '../../transport/answer';
import {
	credentialsOf,
	failureOf,
	oncePerRun,
	settle,
	type ApiClient,
} from '../../transport/apiRoute';
import { bitcoinNetworkFor } from '../../transport/credentials';
import { withNote } from '../../transport/exchange';
import {
	checkCollateralAddress,
	describeValue,
	isRecord,
	type CollateralAddressKind,
} from '../../validation/checks';
import { invalidParameter } from '../../validation/parameters';

/*
 * Which kind of address Contract → Create's Collateral Address must be: an Arkade offer
 * (collateral_asset ArkadeBtc) gives the collateral back off-chain to an Ark address, any other offer
 * on-chain to a Bitcoin address. Lendasat's own apps pick the address by the offer's asset (iframe
 * useWallet.ts useCollateralAddress); the node reads the offer once per offer and run to know it.
 */

const KIND_OF_ASSET: Record<string, CollateralAddressKind> = {
	ArkadeBtc: 'ark',
	BitcoinBtc: 'onchain',
};

/**
 * The collateral asset of each offer read in this run, per key sent (an offer another borrower sees
 * may differ): undefined where the server cannot say.
 */
const offerAssetsOf = oncePerRun((): Map<string, Promise<string | undefined>> => new Map());

/**
 * Refuses the item when its Collateral Address is of the other kind than the offer takes. Nothing is
 * read without a Collateral Address. Where the server has no offer route (404, 405) or its offer
 * carries no collateral_asset, either kind passes. A read that fails otherwise (network, 5xx, an
 * unusable answer) fails the item: guessing could send the collateral of an Arkade loan to an
 * on-chain address (or the reverse), where the claim cannot pay it; nothing was written, so running
 * the item again is safe.
 */
export async function requireCollateralKind(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	body: IDataObject,
): Promise<void> {
	const address = body.borrower_btc_address ?? body.collateral_address;
	const offerId = body.id ?? body.loan_id;
	if (typeof address !== 'string' || typeof offerId !== 'string') return;
	const asset = await collateralAssetOf(context, api, offerId);
	const kind = (asset !== undefined && KIND_OF_ASSET[asset]) || 'either';
	if (kind === 'either') return;
	const network = bitcoinNetworkFor((await credentialsOf(context)).environment);
	const problem = checkCollateralAddress(address, network, kind);
	if (problem) throw invalidParameter(context, 'Collateral Address', problem);
}

function collateralAssetOf(
	context: IExecutePaginationFunctions,
	api: ApiClient,
	offerId: string,
): Promise<string | undefined> {
	const assets = offerAssetsOf(context);
	const key = `${api.keyIdentity} ${offerId}`;
	let asset = assets.get(key);
	if (!asset) {
		asset = readCollateralAsset(api, offerId);
		// A failed read is not kept: the next item of the run tries again.
		asset.catch(() => assets.delete(key));
		assets.set(key, asset);
	}
	return asset;
}

async function readCollateralAsset(api: ApiClient, offerId: string): Promise<string | undefined> {
	// The live backend's filters would hide Arkade and Indirect offers without these two.
	const read = await settle(
		api.send(
			{
				method: 'GET',
				url: `/api/offers/${encodeURIComponent(offerId)}`,
				qs: { collateral_asset_type: 'Any', loan_type: 'All' },
			},
			'object',
			{ check: offerAnswer },
		),
	);
	if ('value' in read) {
		const asset = (read.value as IDataObject).collateral_asset;
		return typeof asset === 'string' ? asset : undefined;
	}
	const failure = failureOf(read.error);
	if (failure?.kind === 'http' && (failure.statusCode === 404 || failure.statusCode === 405)) {
		return undefined;
	}
	throw withNote(
		read.error,
		`Before creating the contract the node reads loan offer ${offerId} to learn whether its collateral goes back to an Ark address (Arkade) or an on-chain Bitcoin address; that read failed, so nothing was sent. Run the item again.`,
	);
}

/** An offer, or an answer that says nothing about its collateral; never an error body. */
function offerAnswer(body: unknown): string | undefined {
	const problem = liveErrorBodyWithout(body, 'id');
	if (problem) return problem;
	const asset = isRecord(body) ? body.collateral_asset : undefined;
	return asset === undefined || asset === null || typeof asset === 'string'
		? undefined
		: `its collateral_asset ${describeValue(asset)} is not a collateral asset`;
}
