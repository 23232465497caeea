export const TIMEZONE_AREAS = [
	'Africa',
	'America',
	'Antarctica',
	'Arctic',
	'Asia',
	'Atlantic',
	'Australia',
	'Europe',
	'Indian',
	'Pacific',
] as const;

// Area/City, or Area/Region/City such as America/Argentina/Buenos_Aires.
const AREA_CITY_PATTERN = new RegExp(
	`^(${TIMEZONE_AREAS.join('|')})/[A-Za-z][A-Za-z_-]*(/[A-Za-z][A-Za-z_-]*)?$`,
);

// Lower-case words inside IANA names, as in Dar_es_Salaam, Port-au-Prince, Isle_of_Man.
const LOWER_CASE_NAME_WORDS = new Set(['es', 'au', 'of']);

// Legacy IANA aliases whose spelling breaks the capitalised-word convention, by lower case.
const IRREGULARLY_CASED_ALIASES = new Map(
	[
		'America/Argentina/ComodRivadavia',
		'America/Knox_IN',
		'Australia/ACT',
		'Australia/LHI',
		'Australia/NSW',
	].map((alias) => [alias.toLowerCase(), alias]),
);

let cachedAreaCityTimezones: string[] | undefined;

/** The IANA zones this runtime knows of the form Area/City, sorted. */
export function listAreaCityTimezones(): string[] {
	cachedAreaCityTimezones ??= Intl.supportedValuesOf('timeZone')
		.filter((zone) => AREA_CITY_PATTERN.test(zone))
		.sort();
	return [...cachedAreaCityTimezones];
}

/**
 * True for a real IANA zone of the form Area/City (including legacy aliases the runtime
 * accepts, such as Asia/Calcutta), spelled with its exact case.
 */
export function isAreaCityTimezone(value: string): boolean {
	if (!AREA_CITY_PATTERN.test(value)) return false;
	const resolved = resolveTimezone(value);
	if (resolved === undefined) return false;
	// The runtime matches names case-insensitively and resolves aliases to another name,
	// so the exact case can only be compared directly when the name resolves to itself.
	if (resolved.toLowerCase() === value.toLowerCase()) return resolved === value;
	const irregularAlias = IRREGULARLY_CASED_ALIASES.get(value.toLowerCase());
	if (irregularAlias !== undefined) return irregularAlias === value;
	return hasConventionalCasing(value);
}

/** The runtime's own name for a zone (matched case-insensitively, aliases resolved), or undefined if unknown. */
export function resolveTimezone(value: string): string | undefined {
	try {
		return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
	} catch {
		return undefined;
	}
}

/** The exact spelling of a zone that `value` names with the wrong upper/lower case, if any. */
export function correctTimezoneCase(value: string): string | undefined {
	const lower = value.toLowerCase();
	const candidates = [
		listAreaCityTimezones().find((zone) => zone.toLowerCase() === lower),
		IRREGULARLY_CASED_ALIASES.get(lower),
		toConventionalCasing(value),
	];
	return candidates.find((candidate) => candidate !== undefined && isAreaCityTimezone(candidate));
}

function toConventionalCasing(value: string): string | undefined {
	const [area, ...location] = value.split('/');
	const knownArea = TIMEZONE_AREAS.find(
		(candidate) => candidate.toLowerCase() === area.toLowerCase(),
	);
	if (knownArea === undefined) return undefined;
	const casedLocation = location
		.join('/')
		.toLowerCase()
		.replace(/[a-z]+/g, (word) =>
			LOWER_CASE_NAME_WORDS.has(word) ? word : word[0].toUpperCase() + word.slice(1),
		);
	return `${knownArea}/${casedLocation}`;
}

function hasConventionalCasing(zone: string): boolean {
	const location = zone.slice(zone.indexOf('/') + 1);
	return location
		.split(/[/_-]/)
		.every((word) => /^[A-Z][a-z]+$/.test(word) || LOWER_CASE_NAME_WORDS.has(word));
}
