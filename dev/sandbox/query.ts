/**
 * Query-string parameters in both dialects. The live backend reads them with axum 0.7's `Query`
 * (serde_urlencoded) unwrapped, so a value that does not fit is a plain-text 400
 * "Failed to deserialize query string: <serde text>" without the parameter's name; checks made by the
 * handlers afterwards (page/limit ranges) answer JSON `{message}` instead.
 */
import { badRequest, liveQueryRejection, shorten } from './errors';
import type { Dialect } from './types';

function oneOf(variants: readonly string[]): string {
	const quoted = variants.map((variant) => `\`${variant}\``);
	if (quoted.length === 1) return `expected ${quoted[0]}`;
	if (quoted.length === 2) return `expected ${quoted[0]} or ${quoted[1]}`;
	return `expected one of ${quoted.join(', ')}`;
}

/**
 * An enum parameter. Spec: absent or empty gives the fallback. Live: absent gives the fallback, any
 * present value (even empty) must be a variant (serde: "unknown variant `x`, expected …").
 */
export function enumParam(
	dialect: Dialect,
	query: Record<string, string>,
	name: string,
	variants: readonly string[],
	fallback: string,
): string {
	const raw = query[name];
	const value = raw === undefined || (raw === '' && dialect === 'spec') ? fallback : raw;
	if (variants.includes(value)) return value;
	throw badRequest(
		'INVALID_QUERY',
		`Parameter ${name} must be one of ${variants.join(', ')}, got ${shorten(value)}`,
		liveQueryRejection(`unknown variant \`${value}\`, ${oneOf(variants)}`),
	);
}

/** Rust's `u32::from_str` error texts (ParseIntError). */
function u32Problem(raw: string): string | null {
	if (raw === '') return 'cannot parse integer from empty string';
	if (!/^\+?\d+$/.test(raw)) return 'invalid digit found in string';
	return Number(raw.replace(/^\+/, '')) > 0xffffffff
		? 'number too large to fit in target type'
		: null;
}

/** Rust's `i32::from_str` error texts. */
function i32Problem(raw: string): string | null {
	if (raw === '' || raw === '-' || raw === '+')
		return raw === '' ? 'cannot parse integer from empty string' : 'invalid digit found in string';
	if (!/^[+-]?\d+$/.test(raw)) return 'invalid digit found in string';
	const value = Number(raw);
	if (value > 2 ** 31 - 1) return 'number too large to fit in target type';
	return value < -(2 ** 31) ? 'number too small to fit in target type' : null;
}

/** Rust's `f64::from_str` error texts (ParseFloatError). */
function f64Problem(raw: string): string | null {
	if (raw === '') return 'cannot parse float from empty string';
	return /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i.test(raw)
		? null
		: 'invalid float literal';
}

/**
 * A numeric parameter: undefined when absent (spec: also when empty). `kind` is the Rust type the live
 * backend parses it into; `specProblem` tells what the spec dialect says when it is not a number.
 */
export function numberParam(
	dialect: Dialect,
	query: Record<string, string>,
	name: string,
	kind: 'u32' | 'i32' | 'f64',
	spec: { code: string; details: string },
): number | undefined {
	const raw = query[name];
	if (raw === undefined || (raw === '' && dialect === 'spec')) return undefined;
	const problem =
		kind === 'u32' ? u32Problem(raw) : kind === 'i32' ? i32Problem(raw) : f64Problem(raw);
	if (problem === null && (kind !== 'f64' || Number.isFinite(Number(raw)))) return Number(raw);
	throw badRequest(spec.code, spec.details, liveQueryRejection(problem ?? 'invalid float literal'));
}

/** A bool parameter (Rust's `bool::from_str`: exactly `true` or `false`). */
export function boolParam(
	dialect: Dialect,
	query: Record<string, string>,
	name: string,
	fallback: boolean,
): boolean {
	const raw = query[name];
	if (raw === undefined || (raw === '' && dialect === 'spec')) return fallback;
	if (raw === 'true' || raw === 'false') return raw === 'true';
	throw badRequest(
		'INVALID_QUERY',
		`Parameter ${name} must be true or false, got ${shorten(raw)}`,
		liveQueryRejection('provided string was not `true` or `false`'),
	);
}
