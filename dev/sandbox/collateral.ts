/**
 * A contract's collateral figures as the API serves them, and the admin levers that move them: the
 * bitcoin price of the price routes and collateral added to a funded contract.
 *
 * hub 0.8.2 (lendasat/iframe 49781f87) computes balance_outstanding and liquidation_price at every
 * read (routes/borrower/contracts.rs:2087 and 2103, in map_to_api_contract), from the installments
 * and the collateral as they are then; the sandbox does the same when it serves a contract
 * (contractView), so the two figures always agree with each other and with the installments.
 *
 * What the sandbox stores: `deposited_sats` is everything sent to the contract address (the
 * origination fee included) and `collateral_sats` that less the fee, as the schema's field
 * descriptions say (lendasat/iframe HEAD packages/api/src/openapi/schema.d.ts:1410-1424), and the
 * spec dialect serves them so. hub 0.8.2's code serves them the other way round
 * (routes/borrower/contracts.rs:2105-2125: collateral_sats is the model's collateral_sats,
 * "_including_ the origination fee", model/contract.rs:42-48, and deposited_sats that less the
 * fee), and so does the live dialect.
 */
import { actualCollateral, BTC_PRICE, liquidationPriceOf, outstandingBalance } from './loans';
import { adminError, adminPost, anyContract, bodyOf } from './lifecycle';
import { jsonReply, type Route } from './router';
import { txidFor } from './ids';
import { nowIso, type SandboxState } from './state';
import type { Contract, Dialect } from './types';

/**
 * Statuses in which the chain watcher counts collateral added to a funded contract
 * (contract_update_collateral.rs:121-133 "the contract is already funded, we just update the
 * collateral"; model/contract.rs:518-546 needs_to_be_checked_for_tx_updates).
 */
const TOP_UP_STATUSES = new Set([
	'CollateralConfirmed',
	'PrincipalGiven',
	'RepaymentProvided',
	'RepaymentConfirmed',
	'Undercollateralized',
	'Defaulted',
	'DisputeBorrowerStarted',
	'DisputeLenderStarted',
]);

/** A contract as GET /api/contracts(/{id}) serves it in the dialect. */
export function contractView(dialect: Dialect, contract: Contract): Contract {
	const view: Contract = {
		...contract,
		balance_outstanding: outstandingBalance(contract),
		liquidation_price: liquidationPriceOf(contract),
	};
	if (dialect === 'live') {
		const total = contract.deposited_sats;
		view.collateral_sats = total;
		view.deposited_sats =
			total > contract.origination_fee_sats ? total - contract.origination_fee_sats : total;
	}
	return view;
}

/** The price of one bitcoin in US dollars the price routes end at; null: they have none [INF]. */
export function btcPriceUsd(state: SandboxState): number | null {
	return state.btcPriceUsd === undefined ? BTC_PRICE : state.btcPriceUsd;
}

export interface CollateralAdmin {
	/**
	 * Moves the market: the price series of GET /api/historical-prices ends at `usd` (other assets
	 * at its converted price) from now on; null leaves the series empty (no price at all).
	 */
	setBtcPrice(usd: number | null): number | null;
	/** The borrower sends `sats` more to a funded contract and the chain watcher counts them. */
	addCollateral(contractId: string, sats: number): Contract;
}

export function collateralAdmin(state: () => SandboxState): CollateralAdmin {
	return {
		setBtcPrice: (usd) => {
			if (usd !== null && !(typeof usd === 'number' && Number.isFinite(usd) && usd > 0)) {
				throw adminError(400, 'usd must be a price above 0, or null for no price');
			}
			state().btcPriceUsd = usd;
			return usd;
		},
		addCollateral: (contractId, sats) => addCollateral(state(), contractId, sats),
	};
}

function addCollateral(state: SandboxState, contractId: string, sats: number): Contract {
	const entry = anyContract(state, contractId);
	const { contract } = entry;
	if (!Number.isSafeInteger(sats) || sats <= 0) {
		throw adminError(400, 'sats must be a whole number of sats above 0');
	}
	if (!TOP_UP_STATUSES.has(contract.status)) {
		throw adminError(
			400,
			`Contract ${contract.id} is ${contract.status}: the sandbox adds collateral only to a funded contract`,
		);
	}
	contract.deposited_sats += sats;
	contract.collateral_sats = actualCollateral(contract);
	contract.updated_at = nowIso(state);
	// hub sends no notification for a top-up; the transaction list shows it as a Funding [INF].
	const txid = txidFor(state.seed, `${contract.id}:top-up:${contract.transactions.length}`);
	contract.transactions.push({
		id: state.ids.uuid(),
		contract_id: contract.id,
		txid,
		timestamp: contract.updated_at,
		transaction_type: 'Funding',
	});
	// The timeline is built from the transactions: every funding after the first is another
	// CollateralConfirmed entry at its time, though the status does not change (hub 49781f87
	// routes/borrower/contracts.rs:2287-2306).
	contract.timeline.push({
		date: contract.updated_at,
		txid,
		event: { type: 'contract_status_change', status: 'CollateralConfirmed' },
	});
	return contract;
}

/** POST /__admin/price `{usd}` (null: no price) and POST /__admin/contracts/{id}/collateral `{sats}`. */
export function collateralAdminRoutes(admin: CollateralAdmin): Route[] {
	return [
		adminPost('/price', (ctx) => {
			const usd = bodyOf(ctx.body).usd;
			if (usd !== null && typeof usd !== 'number') {
				throw adminError(400, 'usd must be a number, or null for no price');
			}
			return jsonReply({ usd: admin.setBtcPrice(usd) });
		}),
		adminPost('/contracts/:id/collateral', (ctx) =>
			jsonReply(admin.addCollateral(ctx.params.id, bodyOf(ctx.body).sats as number)),
		),
	];
}
