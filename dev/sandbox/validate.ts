/**
 * Field validation shared by the handlers. Each check throws an ApiError carrying the spec code and
 * the live backend's message.
 */
import { badRequest, liveJsonRejection, shorten } from './errors';
import { UUID_PATTERN } from './ids';

export type JsonObject = Record<string, unknown>;

const EMAIL_PATTERN =
	/^[^\s@"(),:;<>[\]\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const AREA_CITY_PATTERN =
	/^(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)(?:\/[A-Z][A-Za-z0-9_+-]*)+$/;
const SUPPORTED_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

export const MAX_NAME_LENGTH = 100;

export function isUuid(value: unknown): value is string {
	return typeof value === 'string' && UUID_PATTERN.test(value);
}

export function isPlausibleEmail(value: string): boolean {
	return value.length <= 254 && EMAIL_PATTERN.test(value);
}

function isKnownZone(zone: string): boolean {
	if (SUPPORTED_ZONES.has(zone)) return true;
	try {
		const resolved = new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
		// ICU matches case-insensitively; 'Europe/BERLIN' is not the zone's name.
		return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
	} catch {
		return false;
	}
}

/** An IANA zone of the Area/City form (Europe/Berlin, America/Argentina/Buenos_Aires), exact case. */
export function isAreaCityTimezone(value: string): boolean {
	return AREA_CITY_PATTERN.test(value) && isKnownZone(value);
}

export function isPositiveNumber(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

export function isPositiveInteger(value: unknown): value is number {
	return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isMissing(value: unknown): boolean {
	return value === undefined || value === null;
}

/** The body as an object, or a 400 naming the fields the endpoint needs. */
export function requireObject(body: unknown, required: string[]): JsonObject {
	if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as JsonObject;
	throw badRequest(
		'MISSING_FIELD',
		`Request body must be a JSON object with the fields ${required.join(', ')}`,
		liveJsonRejection(
			`invalid type: ${Array.isArray(body) ? 'sequence' : typeof body}, expected a map`,
		),
	);
}

/** 400 MISSING_FIELD (live: axum's 422) when any of the named fields is absent or null. */
export function requireFields(body: JsonObject, fields: string[]): void {
	const missing = fields.filter((field) => isMissing(body[field]));
	if (missing.length === 0) return;
	const details =
		missing.length === 1
			? `Missing required field: ${missing[0]}`
			: `Missing required fields: ${missing.join(', ')}`;
	throw badRequest('MISSING_FIELD', details, liveJsonRejection(`missing field \`${missing[0]}\``));
}

/** An optional string field: absent/null gives undefined, anything but a string is a 400. */
export function optionalString(body: JsonObject, field: string): string | undefined {
	const value = body[field];
	if (isMissing(value)) return undefined;
	if (typeof value === 'string') return value;
	throw badRequest(
		'INVALID_FIELD',
		`Field ${field} must be a string, got ${shorten(value)}`,
		liveJsonRejection(`${field}: invalid type: ${typeof value}, expected a string`),
	);
}

export function requireString(body: JsonObject, field: string, code: string): string {
	const value = body[field];
	if (typeof value === 'string') return value;
	throw badRequest(
		code,
		`Field ${field} must be a string, got ${shorten(value)}`,
		liveJsonRejection(`${field}: invalid type: ${typeof value}, expected a string`),
	);
}

/** Money in the backend's form: a float rounded to 2 decimal places. */
export function roundMoney(value: number): number {
	return Math.round(value * 100) / 100;
}

/** How the backend prints amounts in messages: 100, 50.5 (no trailing zeros). */
export function formatAmount(value: number): string {
	return String(roundMoney(value));
}
