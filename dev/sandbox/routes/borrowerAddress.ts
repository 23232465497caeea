/**
 * PUT /api/contracts/{id}/borrower-address: hub 0.8.2 routes/borrower/contracts.rs:1436-1496
 * (put_borrower_btc_address), wallet.rs:718-739 (is_signed_by_pk), db/contracts.rs:2069-2091.
 */
import { ApiError } from '../errors';
import { messageHashAndRecover } from '../messageSigner';
import { caller, jsonReply, type RequestContext, type Route } from '../router';
import { bitcoinAddressProblem, deserializeLive } from '../serde';
import { nowIso, ownedContract } from '../state';
import { requireFields, requireObject, requireString } from '../validate';

interface AddressUpdate {
	address: string;
	signatureHex: string;
	recoveryId: number;
}

const FIELDS = ['address', 'recoverable_signature_hex', 'recoverable_signature_id'];

/**
 * UpdateBorrowerBtcAddress (contracts.rs:1960-1970) through AppJson: `address` is a bitcoin
 * `Address<NetworkUnchecked>` (a bad one is serde's 422), the signature a String, its ID an i32.
 */
function readUpdate(ctx: RequestContext): AddressUpdate {
	if (ctx.config.dialect === 'live') {
		const body = deserializeLive(ctx.rawBody, ctx.body, 'UpdateBorrowerBtcAddress', [
			{
				name: 'address',
				type: { kind: 'string', expecting: 'a Bitcoin address', check: bitcoinAddressProblem },
			},
			{ name: 'recoverable_signature_hex', type: { kind: 'string' } },
			{ name: 'recoverable_signature_id', type: { kind: 'i32' } },
		]);
		return {
			address: body.address as string,
			signatureHex: body.recoverable_signature_hex as string,
			recoveryId: body.recoverable_signature_id as number,
		};
	}
	const body = requireObject(ctx.body, FIELDS);
	requireFields(body, FIELDS);
	const address = requireString(body, 'address', 'INVALID_ADDRESS');
	if (bitcoinAddressProblem(address) !== null) {
		throw new ApiError(400, 'INVALID_ADDRESS', 'Field address must be a Bitcoin address');
	}
	const recoveryId = body.recoverable_signature_id;
	if (typeof recoveryId !== 'number' || !Number.isInteger(recoveryId)) {
		throw new ApiError(400, 'INVALID_FIELD', 'Field recoverable_signature_id must be an integer');
	}
	return {
		address,
		signatureHex: requireString(body, 'recoverable_signature_hex', 'INVALID_FIELD'),
		recoveryId,
	};
}

/** bitcoin's Address Display: bech32 in lower case, base58 as it is. */
function canonicalAddress(address: string): string {
	return /^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address;
}

/**
 * In the handler's order: the caller's contract (an unknown or foreign one: 500 "Something went
 * wrong"; spec 404), then is_signed_by_pk over the canonical address: hex that does not decode, not
 * 64 bytes, a recovery ID outside 0–3 or no recoverable key is 400 "Bad signature provided"; a key
 * other than the contract's borrower_pk 400 "Invalid signature provided". Any status is accepted.
 * The answer is `null` (AppJson(())).
 */
function updateBorrowerAddress(ctx: RequestContext): ReturnType<Route['handle']> {
	const update = readUpdate(ctx);
	const entry = ownedContract(ctx.state, caller(ctx).user.id, ctx.params.id);
	const address = canonicalAddress(update.address);
	const recovered = messageHashAndRecover(address, update.signatureHex, update.recoveryId);
	if (recovered === null) {
		throw new ApiError(
			400,
			'BAD_SIGNATURE',
			'The signature is not a recoverable signature in hex',
			{
				message: 'Bad signature provided',
			},
		);
	}
	if (recovered !== entry.contract.borrower_pk.toLowerCase()) {
		throw new ApiError(
			400,
			'INVALID_SIGNATURE',
			"The signature is not by the contract's borrower key",
			{
				message: 'Invalid signature provided',
			},
		);
	}
	entry.contract.borrower_btc_address = address;
	entry.contract.updated_at = nowIso(ctx.state);
	return jsonReply(null);
}

export const borrowerAddressRoutes: Route[] = [
	{
		method: 'PUT',
		pattern: '/api/contracts/:id/borrower-address',
		auth: 'borrower',
		body: 'json',
		handle: updateBorrowerAddress,
	},
];
