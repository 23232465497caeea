/**
 * How the live backend turns a JSON body into one of its request structs, imitated for the live
 * dialect. The backend (hub 0.8.2, axum 0.7.9, serde_json 1.0, serde_path_to_error 0.1) wraps axum's
 * `Json` extractor in its own `AppJson`, so a rejection is `{"message": <axum text>}`:
 * - a value of the wrong type, an unknown enum variant or a missing field: 422
 *   "Failed to deserialize the JSON body into the target type: <path>: <serde text> at line L column C";
 * - a syntax-category serde_json error (e.g. a number where an enum is expected: "expected value"): 400
 *   "Failed to parse the request body as JSON: …".
 * serde walks the body's fields in document order (the first bad value wins), ignores unknown fields,
 * and reports the first missing field (in declaration order) at the end of the object. Positions are
 * serde_json's: the line, and the byte column of the last character read.
 *
 * The texts of the bitcoin/uuid parse errors (address, public key, derivation path, UUID) were not
 * checked against those crates' sources: they are close approximations, marked [INF] below.
 */
import { ECDH, createHash } from 'node:crypto';
import { ApiError, asPlainText, liveJsonRejection, liveJsonSyntaxRejection } from './errors';
import { BECH32_CHARSET, bech32Polymod, decodeArkAddress } from './bitcoin';

export type FieldKind =
	| { kind: 'string'; expecting?: string; check?: (value: string) => string | null }
	| { kind: 'decimal' }
	| { kind: 'bool' }
	| { kind: 'i32' }
	| { kind: 'uuid' }
	| { kind: 'enum'; variants: readonly string[] }
	| { kind: 'struct'; name: string; fields: FieldSpec[] }
	/** `Vec<String>`. */
	| { kind: 'strings' }
	| { kind: 'any' };

export interface FieldSpec {
	name: string;
	type: FieldKind;
	/** `Option<T>`: absent or null gives undefined. */
	optional?: boolean;
	/**
	 * `Option<T>` read with a `deserialize_with` helper (e.g. rust_decimal's `float_option`): null
	 * gives undefined, but the field must be present ("missing field" otherwise).
	 */
	nullable?: boolean;
}

interface Entry {
	key: string;
	keyEnd: number;
	start: number;
	end: number;
}

const WHITESPACE = ' \t\n\r';

function skipWhitespace(raw: string, index: number): number {
	let at = index;
	while (at < raw.length && WHITESPACE.includes(raw[at])) at += 1;
	return at;
}

function skipString(raw: string, index: number): number {
	let at = index + 1;
	while (at < raw.length) {
		if (raw[at] === '\\') at += 2;
		else if (raw[at] === '"') return at + 1;
		else at += 1;
	}
	return at;
}

function skipValue(raw: string, index: number): number {
	const first = raw[index];
	if (first === '"') return skipString(raw, index);
	if (first === '{' || first === '[') {
		let depth = 0;
		let at = index;
		while (at < raw.length) {
			const char = raw[at];
			if (char === '"') {
				at = skipString(raw, at);
				continue;
			}
			if (char === '{' || char === '[') depth += 1;
			else if (char === '}' || char === ']') {
				depth -= 1;
				if (depth === 0) return at + 1;
			}
			at += 1;
		}
		return at;
	}
	let at = index;
	while (at < raw.length && !',}] \t\n\r'.includes(raw[at])) at += 1;
	return at;
}

/** The members of the (valid) JSON object starting at `index`, with their text spans, and its end. */
function scanObject(raw: string, index: number): { entries: Entry[]; end: number } {
	const entries: Entry[] = [];
	let at = index + 1;
	while (at < raw.length) {
		at = skipWhitespace(raw, at);
		if (raw[at] === '}') return { entries, end: at + 1 };
		if (raw[at] === ',') {
			at += 1;
			continue;
		}
		const keyEnd = skipString(raw, at);
		const key = JSON.parse(raw.slice(at, keyEnd)) as string;
		const start = skipWhitespace(raw, skipWhitespace(raw, keyEnd) + 1);
		const end = skipValue(raw, start);
		entries.push({ key, keyEnd, start, end });
		at = end;
	}
	return { entries, end: raw.length };
}

/** The text spans of the elements of the (valid) JSON array starting at `index`. */
function scanArray(raw: string, index: number): { start: number; end: number }[] {
	const elements: { start: number; end: number }[] = [];
	let at = index + 1;
	while (at < raw.length) {
		at = skipWhitespace(raw, at);
		if (raw[at] === ']') return elements;
		if (raw[at] === ',') {
			at += 1;
			continue;
		}
		const end = skipValue(raw, at);
		elements.push({ start: at, end });
		at = end;
	}
	return elements;
}

/** serde_json's "at line L column C" for the character just before `offset`. */
function position(raw: string, offset: number): string {
	const before = raw.slice(0, offset);
	const lineStart = before.lastIndexOf('\n') + 1;
	const line = before.split('\n').length;
	return `at line ${line} column ${Buffer.byteLength(before.slice(lineStart))}`;
}

/** serde's `Unexpected` rendering of a JSON value. */
function unexpected(value: unknown, text: string): string {
	if (value === null) return 'null';
	if (typeof value === 'boolean') return `boolean \`${value}\``;
	if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
	if (Array.isArray(value)) return 'sequence';
	if (typeof value === 'object') return 'map';
	if (/^-?\d+$/.test(text.trim())) return `integer \`${text.trim()}\``;
	const number = value as number;
	return `floating point \`${Number.isInteger(number) ? `${number}.0` : String(number)}\``;
}

function oneOf(variants: readonly string[]): string {
	const quoted = variants.map((variant) => `\`${variant}\``);
	if (quoted.length === 1) return `expected ${quoted[0]}`;
	if (quoted.length === 2) return `expected ${quoted[0]} or ${quoted[1]}`;
	return `expected one of ${quoted.join(', ')}`;
}

class Rejection {
	constructor(
		readonly reason: string,
		readonly syntax = false,
	) {}
}

function prefixed(path: string, reason: string): string {
	return path === '' ? reason : `${path}: ${reason}`;
}

function expectingOf(type: FieldKind): string {
	switch (type.kind) {
		case 'string':
			return type.expecting ?? 'a string';
		case 'decimal':
			return 'a Decimal type representing a fixed-point number';
		case 'bool':
			return 'a boolean';
		case 'i32':
			return 'i32';
		case 'uuid':
			return 'a UUID string';
		case 'enum':
			return 'enum';
		case 'struct':
			return `struct ${type.name}`;
		case 'strings':
			return 'a sequence';
		default:
			return 'any value';
	}
}

function readValue(
	raw: string,
	entry: Entry,
	value: unknown,
	type: FieldKind,
	path: string,
): unknown {
	const text = raw.slice(entry.start, entry.end);
	const at = position(raw, entry.end);
	const invalidType = (): Rejection =>
		new Rejection(
			`${prefixed(path, `invalid type: ${unexpected(value, text)}, expected ${expectingOf(type)}`)} ${at}`,
		);
	switch (type.kind) {
		case 'any':
			return value;
		case 'string': {
			if (typeof value !== 'string') throw invalidType();
			const problem = type.check?.(value);
			if (problem) throw new Rejection(`${prefixed(path, problem)} ${at}`);
			return value;
		}
		case 'decimal':
			if (typeof value !== 'number') throw invalidType();
			return value;
		case 'bool':
			if (typeof value !== 'boolean') throw invalidType();
			return value;
		case 'i32': {
			if (typeof value !== 'number' || !/^-?\d+$/.test(text)) throw invalidType();
			if (value < -(2 ** 31) || value > 2 ** 31 - 1) {
				throw new Rejection(
					`${prefixed(path, `invalid value: integer \`${text}\`, expected i32`)} ${at}`,
				);
			}
			return value;
		}
		case 'uuid': {
			if (typeof value !== 'string') throw invalidType();
			const problem = uuidProblem(value);
			if (problem)
				throw new Rejection(`${prefixed(path, `UUID parsing failed: ${problem}`)} ${at}`);
			return canonicalUuid(value);
		}
		case 'enum':
			if (typeof value === 'string') {
				if (type.variants.includes(value)) return value;
				throw new Rejection(
					`${prefixed(path, `unknown variant \`${value}\`, ${oneOf(type.variants)}`)} ${at}`,
				);
			}
			// serde_json's deserialize_enum peeks something that is neither a string nor a map:
			// ErrorCode::ExpectedSomeValue, a *syntax* error, so axum answers 400 (JsonSyntaxError).
			throw new Rejection(
				`${prefixed(path, 'expected value')} ${position(raw, entry.start + 1)}`,
				true,
			);
		case 'struct':
			if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidType();
			return readObject(raw, entry.start, value as Record<string, unknown>, type.fields, path);
		case 'strings': {
			if (!Array.isArray(value)) throw invalidType();
			const bad = value.findIndex((item) => typeof item !== 'string');
			if (bad < 0) return value;
			const element = scanArray(raw, entry.start)[bad];
			throw new Rejection(
				`${prefixed(`${path}[${bad}]`, `invalid type: ${unexpected(value[bad], raw.slice(element.start, element.end))}, expected a string`)} ${position(raw, element.end)}`,
			);
		}
	}
}

function readObject(
	raw: string,
	start: number,
	object: Record<string, unknown>,
	fields: FieldSpec[],
	path: string,
): Record<string, unknown> {
	const { entries, end } = scanObject(raw, start);
	const result: Record<string, unknown> = {};
	const seen = new Set<string>();
	for (const entry of entries) {
		const field = fields.find((candidate) => candidate.name === entry.key);
		if (!field) continue; // no #[serde(deny_unknown_fields)]: unknown fields are skipped
		if (seen.has(field.name)) {
			throw new Rejection(
				`${prefixed(path, `duplicate field \`${field.name}\``)} ${position(raw, entry.keyEnd)}`,
			);
		}
		seen.add(field.name);
		// JSON.parse keeps the last duplicate; serde already failed above, so the value is this entry's.
		const value = object[field.name];
		if ((field.optional || field.nullable) && value === null) continue;
		const childPath = path === '' ? field.name : `${path}.${field.name}`;
		result[field.name] = readValue(raw, entry, value, field.type, childPath);
	}
	const missing = fields.find((field) => !field.optional && !seen.has(field.name));
	if (missing)
		throw new Rejection(
			`${prefixed(path, `missing field \`${missing.name}\``)} ${position(raw, end)}`,
		);
	return result;
}

/**
 * Deserialises `raw` (already known to be valid JSON, parsed as `body`) into the fields of the Rust
 * struct `structName`, or throws the live backend's rejection as an ApiError (spec side: 400
 * INVALID_BODY; only the live dialect calls this).
 */
export function deserializeLive(
	raw: string,
	body: unknown,
	structName: string,
	fields: FieldSpec[],
): Record<string, unknown> {
	try {
		const start = skipWhitespace(raw, 0);
		if (body === null || typeof body !== 'object' || Array.isArray(body)) {
			const end = skipValue(raw, start);
			const what = Array.isArray(body)
				? // serde's derived visit_seq: a too short array is "invalid length N, expected struct X with M elements"
					`invalid length ${(body as unknown[]).length}, expected struct ${structName} with ${fields.length} elements`
				: `invalid type: ${unexpected(body, raw.slice(start, end))}, expected struct ${structName}`;
			throw new Rejection(`${what} ${position(raw, end)}`);
		}
		return readObject(raw, start, body as Record<string, unknown>, fields, '');
	} catch (error) {
		if (!(error instanceof Rejection)) throw error;
		const live = error.syntax
			? liveJsonSyntaxRejection(error.reason)
			: liveJsonRejection(error.reason);
		throw new ApiError(400, 'INVALID_BODY', error.reason, live);
	}
}

/**
 * The same for a handler that takes plain `axum::Json` rather than the backend's AppJson: its
 * rejections are axum's plain text, not `{"message": …}`.
 */
export function deserializeLivePlain(
	raw: string,
	body: unknown,
	structName: string,
	fields: FieldSpec[],
): Record<string, unknown> {
	try {
		return deserializeLive(raw, body, structName, fields);
	} catch (error) {
		throw error instanceof ApiError ? asPlainText(error) : error;
	}
}

// ---------------------------------------------------------------------------------------------
// Value checks of the Rust types the backend deserialises into.

const HEX_UUID = /^[0-9a-f]{32}$/i;

/** A parsed Uuid as serde serialises it back: lower-case, hyphenated. */
function canonicalUuid(value: string): string {
	const hex = value
		.replace(/^urn:uuid:/, '')
		.replace(/[{}-]/g, '')
		.toLowerCase();
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** uuid 1.x `Uuid::parse_str` failures, roughly in its words [INF]. */
export function uuidProblem(value: string): string | null {
	let text = value;
	if (text.startsWith('urn:uuid:')) text = text.slice(9);
	else if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
	const badIndex = [...text].findIndex((char) => !/[0-9a-fA-F-]/.test(char));
	if (badIndex >= 0) {
		return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${text[badIndex]}\` at ${badIndex + 1}`;
	}
	if (!text.includes('-')) {
		return HEX_UUID.test(text)
			? null
			: `invalid length: expected length 32 for simple format, found ${text.length}`;
	}
	const groups = text.split('-');
	if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
	const lengths = [8, 4, 4, 4, 12];
	const wrong = groups.findIndex((group, index) => group.length !== lengths[index]);
	if (wrong >= 0)
		return `invalid group length in group ${wrong}: expected ${lengths[wrong]}, found ${groups[wrong].length}`;
	return null;
}

/** bitcoin 0.32 `PublicKey::from_str` (66 or 130 hex digits, a point on secp256k1) [INF texts]. */
export function publicKeyProblem(value: string): string | null {
	if (value.length !== 66 && value.length !== 130) {
		return `pubkey string should be 66 or 130 digits long, got: ${value.length}`;
	}
	const bad = [...value].find((char) => !/[0-9a-fA-F]/.test(char));
	if (bad !== undefined) return `hex error ${bad}`;
	try {
		// Throws unless the bytes encode a point on the curve (with a valid 02/03/04 prefix).
		ECDH.convertKey(value, 'secp256k1', 'hex', 'hex', 'compressed');
		return null;
	} catch {
		return 'string error';
	}
}

/** bitcoin 0.32 `DerivationPath::from_str`: "m" then "/"-separated child numbers (h or ' = hardened) [INF texts]. */
export function derivationPathProblem(value: string): string | null {
	const parts = value.split('/');
	if (parts[0] !== 'm') return 'invalid derivation path format';
	for (const part of parts.slice(1)) {
		const hardened = part.endsWith("'") || part.endsWith('h');
		const digits = hardened ? part.slice(0, -1) : part;
		if (!/^\d+$/.test(digits) || Number(digits) > 0xffffffff) return 'invalid child number format';
		if (Number(digits) >= 2 ** 31)
			return `child number ${digits} is invalid (not within [0, 2^31 - 1])`;
	}
	return null;
}

const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function convertBits(data: number[], from: number, to: number): number[] | null {
	let accumulator = 0;
	let bits = 0;
	const result: number[] = [];
	const maxValue = (1 << to) - 1;
	for (const value of data) {
		accumulator = (accumulator << from) | value;
		bits += from;
		while (bits >= to) {
			bits -= to;
			result.push((accumulator >>> bits) & maxValue);
		}
	}
	if (bits >= from || ((accumulator << (to - bits)) & maxValue) !== 0) return null;
	return result;
}

function validSegwitAddress(address: string): boolean {
	if (address !== address.toLowerCase() && address !== address.toUpperCase()) return false;
	const lower = address.toLowerCase();
	const separator = lower.lastIndexOf('1');
	if (separator < 1 || separator + 7 > lower.length || lower.length > 90) return false;
	const hrp = lower.slice(0, separator);
	const data = [...lower.slice(separator + 1)].map((char) => BECH32_CHARSET.indexOf(char));
	if (data.some((value) => value < 0)) return false;
	const expanded = [...hrp]
		.map((char) => char.charCodeAt(0) >> 5)
		.concat(
			[0],
			[...hrp].map((char) => char.charCodeAt(0) & 31),
		);
	const constant = bech32Polymod(expanded.concat(data));
	const version = data[0];
	if (version > 16 || constant !== (version === 0 ? BECH32_CONST : BECH32M_CONST)) return false;
	const program = convertBits(data.slice(1, -6), 5, 8);
	if (!program || program.length < 2 || program.length > 40) return false;
	return version !== 0 || program.length === 20 || program.length === 32;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(text: string): Buffer | null {
	let number = 0n;
	for (const char of text) {
		const digit = BASE58.indexOf(char);
		if (digit < 0) return null;
		number = number * 58n + BigInt(digit);
	}
	const hex = number === 0n ? '' : number.toString(16);
	const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
	const zeros = text.length - text.replace(/^1+/, '').length;
	return Buffer.concat([Buffer.alloc(zeros), body]);
}

function sha256d(data: Buffer): Buffer {
	return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

/**
 * The newer backend takes an Ark address (Arkade collateral) as `borrower_btc_address` too, so the field
 * cannot be bitcoin's Address type any more: a valid Ark address passes here, and the handler checks
 * that its kind fits the offer [INF: the newer handler is not public].
 */
export function collateralAddressProblem(value: string): string | null {
	if (/^t?ark1/i.test(value)) return decodeArkAddress(value) ? null : 'invalid Ark address';
	return bitcoinAddressProblem(value);
}

/**
 * bitcoin 0.32 `Address::<NetworkUnchecked>::from_str`: a bech32/bech32m segwit address (hrp bc, tb,
 * bcrt) or a base58check P2PKH/P2SH address of any network [INF texts].
 */
export function bitcoinAddressProblem(value: string): string | null {
	const lower = value.toLowerCase();
	if (lower.startsWith('bc1') || lower.startsWith('tb1') || lower.startsWith('bcrt1')) {
		return validSegwitAddress(value) ? null : 'bech32 segwit decoding error';
	}
	if (value.length > 50) return 'legacy address base58 string';
	const decoded = base58Decode(value);
	if (!decoded || decoded.length < 5) return 'base58 error';
	const payload = decoded.subarray(0, -4);
	if (!sha256d(payload).subarray(0, 4).equals(decoded.subarray(-4))) return 'base58 error';
	if (payload.length !== 21 || ![0x00, 0x05, 0x6f, 0xc4].includes(payload[0]))
		return 'legacy address base58 data';
	return null;
}
