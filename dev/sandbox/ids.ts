/**
 * Deterministic identifiers: UUIDs, API keys, addresses and a seeded PRNG, all derived from a seed
 * string with SHA-256 so that a run of the sandbox is reproducible.
 */
import { createECDH, createHash } from 'node:crypto';

import { arkAddress, base58Check, bech32Encode, segwitAddress, xOnlyKeyFor } from './bitcoin';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const BORROWER_KEY_PATTERN = /^lndst_sk_[0-9a-f]{12}_[A-Za-z0-9]{43}$/;

export function sha256Hex(text: string): string {
	return createHash('sha256').update(text).digest('hex');
}

function hashBytes(text: string, length: number): Buffer {
	const chunks: Buffer[] = [];
	for (let round = 0; Buffer.concat(chunks).length < length; round += 1) {
		chunks.push(createHash('sha512').update(`${round}:${text}`).digest());
	}
	return Buffer.concat(chunks).subarray(0, length);
}

function encodeWith(alphabet: string, text: string, length: number): string {
	return Array.from(hashBytes(text, length), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** Formats 32+ hex digits as a v4-shaped UUID (version nibble 4, RFC 4122 variant). */
export function uuidFromHex(hex: string): string {
	const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
	return [
		hex.slice(0, 8),
		hex.slice(8, 12),
		`4${hex.slice(13, 16)}`,
		`${variant}${hex.slice(17, 20)}`,
		hex.slice(20, 32),
	].join('-');
}

export function uuidFor(seed: string, label: string): string {
	return uuidFromHex(sha256Hex(`${seed}:uuid:${label}`));
}

export function borrowerKeyFor(seed: string, label: string): string {
	const keyId = sha256Hex(`${seed}:key-id:${label}`).slice(0, 12);
	return `lndst_sk_${keyId}_${encodeWith(ALNUM, `${seed}:key-secret:${label}`, 43)}`;
}

export function masterKeyFor(seed: string, label: string): string {
	return `las-${encodeWith(ALNUM, `${seed}:master:${label}`, 20)}`;
}

/** A signet (tb1q…) P2WPKH address with a valid checksum (no known key behind it). */
export function btcAddressFor(seed: string, label: string): string {
	return segwitAddress('tb', 0, hashBytes(`${seed}:btc:${label}`, 20));
}

/** A signet (tb1p…) taproot escrow address with a valid checksum (no known key behind it). */
export function escrowAddressFor(seed: string, label: string): string {
	return segwitAddress('tb', 1, hashBytes(`${seed}:escrow:${label}`, 32));
}

/** The x-only key of the sandbox's Ark server, in every Ark address it hands out. */
export function arkServerKeyFor(seed: string): Buffer {
	return xOnlyKeyFor(`${seed}:ark-server`);
}

/** The x-only taproot key of a VTXO the sandbox makes up (a point on the curve, no known key behind it). */
export function vtxoKeyFor(seed: string, label: string): Buffer {
	return xOnlyKeyFor(`${seed}:vtxo:${label}`);
}

/** A test-network Ark address (tark1…) of the sandbox's Ark server for a made-up VTXO key. */
export function arkAddressFor(seed: string, label: string): string {
	return arkAddress('tark', arkServerKeyFor(seed), vtxoKeyFor(seed, label));
}

export function evmAddressFor(seed: string, label: string): string {
	return `0x${sha256Hex(`${seed}:evm:${label}`).slice(0, 40)}`;
}

export function solanaAddressFor(seed: string, label: string): string {
	return encodeWith(BASE58, `${seed}:sol:${label}`, 44);
}

/** A Tron address: base58check of 0x41 and 20 bytes (a valid checksum, no known key behind it). */
export function tronAddressFor(seed: string, label: string): string {
	return base58Check(Buffer.concat([Buffer.from([0x41]), hashBytes(`${seed}:tron:${label}`, 20)]));
}

/** A compressed secp256k1 public key (a point on the curve; the private key is a hash, known to no one real). */
export function publicKeyFor(seed: string, label: string): string {
	return curvePointFor(`${seed}:pk:${label}`).toString('hex');
}

function curvePointFor(text: string): Buffer {
	const ecdh = createECDH('secp256k1');
	ecdh.setPrivateKey(hashBytes(text, 32));
	return ecdh.getPublicKey(null, 'compressed');
}

export function txidFor(seed: string, label: string): string {
	return sha256Hex(`${seed}:txid:${label}`);
}

export function npubFor(seed: string, label: string): string {
	return bech32Encode('npub', curvePointFor(`${seed}:npub:${label}`).subarray(1), 'bech32');
}

/** Counter-based generator for ids created at run time (contracts, keys, notifications…). */
export class IdGenerator {
	private counter = 0;

	constructor(private readonly seed: string) {}

	private nextLabel(kind: string): string {
		this.counter += 1;
		return `${kind}:${this.counter}`;
	}

	uuid(): string {
		return uuidFor(this.seed, this.nextLabel('run'));
	}

	borrowerKey(): string {
		return borrowerKeyFor(this.seed, this.nextLabel('run-key'));
	}

	label(kind: string): string {
		return this.nextLabel(kind);
	}
}

/** mulberry32: a small deterministic PRNG returning numbers in [0, 1). */
export function createPrng(seed: string): () => number {
	let state = parseInt(sha256Hex(`${seed}:prng`).slice(0, 8), 16) >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
