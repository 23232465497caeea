import {
	TIMEZONE_AREAS,
	correctTimezoneCase,
	isAreaCityTimezone,
	listAreaCityTimezones,
	resolveTimezone,
} from '../../nodes/LendasatBorrower/validation/timezones';

describe('listAreaCityTimezones', () => {
	const zones = listAreaCityTimezones();

	test('contains the common zones', () => {
		expect(zones).toEqual(
			expect.arrayContaining([
				'Europe/Berlin',
				'America/New_York',
				'Asia/Tokyo',
				'Australia/Sydney',
				'Africa/Lagos',
			]),
		);
		expect(zones.length).toBeGreaterThan(300);
	});

	test('only has zones of the listed areas', () => {
		const areas: readonly string[] = TIMEZONE_AREAS;
		expect(zones.filter((zone) => !areas.includes(zone.split('/')[0]))).toEqual([]);
		expect(zones).not.toEqual(expect.arrayContaining(['UTC']));
		expect(zones.some((zone) => zone.startsWith('Etc/'))).toBe(false);
	});

	test('is sorted and without duplicates', () => {
		expect(zones).toEqual([...zones].sort());
		expect(new Set(zones).size).toBe(zones.length);
	});

	test('every listed zone passes isAreaCityTimezone', () => {
		expect(zones.filter((zone) => !isAreaCityTimezone(zone))).toEqual([]);
	});

	test('callers cannot change the cached list', () => {
		listAreaCityTimezones().push('Mars/Olympus');
		expect(listAreaCityTimezones()).not.toContain('Mars/Olympus');
	});
});

describe('isAreaCityTimezone', () => {
	test.each([
		'Europe/Berlin',
		'America/New_York',
		'Asia/Tokyo',
		'Africa/Dar_es_Salaam',
		'America/Port-au-Prince',
		'Antarctica/DumontDUrville',
		'Antarctica/McMurdo',
		'Arctic/Longyearbyen',
		'Atlantic/Reykjavik',
		'Indian/Maldives',
		'Pacific/Auckland',
		'America/Argentina/Buenos_Aires',
		'America/Indiana/Indianapolis',
		'America/North_Dakota/New_Salem',
		// Aliases the runtime accepts: old names and their renamed successors.
		'Asia/Calcutta',
		'Asia/Kolkata',
		'America/Buenos_Aires',
		'Europe/Kiev',
		'Europe/Kyiv',
		'Asia/Saigon',
		'Asia/Ho_Chi_Minh',
		'Europe/Belfast',
		'Asia/Istanbul',
		'Australia/ACT',
		'Australia/NSW',
		'America/Knox_IN',
	])('accepts %s', (zone) => {
		expect(isAreaCityTimezone(zone)).toBe(true);
	});

	test.each([
		'',
		'UTC',
		'GMT',
		'EST',
		'CET',
		'Z',
		'Etc/GMT+5',
		'Etc/UTC',
		'US/Eastern',
		'Brazil/East',
		'Mars/Olympus',
		'Europe/Atlantis',
		'Europe/',
		'/Berlin',
		'Berlin',
		'europe/berlin',
		'Europe/berlin',
		'EUROPE/BERLIN',
		'Europe/BERLIN',
		'asia/kolkata',
		'Asia/kolkata',
		'Asia/KOLKATA',
		'Australia/Act',
		'america/argentina/buenos_aires',
		'Europe/Isle_Of_Man',
		' Europe/Berlin',
		'Europe/Berlin ',
		'Europe/Berlin/Mitte',
		'Europe//Berlin',
		'+01:00',
	])('rejects %j', (zone) => {
		expect(isAreaCityTimezone(zone)).toBe(false);
	});
});

describe('resolveTimezone', () => {
	test.each([
		['europe/berlin', 'Europe/Berlin'],
		['UTC', 'UTC'],
		['US/Eastern', 'America/New_York'],
		['Mars/Olympus', undefined],
		['', undefined],
	])('%j → %j', (zone, resolved) => {
		expect(resolveTimezone(zone)).toBe(resolved);
	});
});

describe('correctTimezoneCase', () => {
	test.each([
		['europe/berlin', 'Europe/Berlin'],
		['EUROPE/BERLIN', 'Europe/Berlin'],
		['Europe/berlin', 'Europe/Berlin'],
		['america/new_york', 'America/New_York'],
		['america/argentina/buenos_aires', 'America/Argentina/Buenos_Aires'],
		['antarctica/dumontdurville', 'Antarctica/DumontDUrville'],
		['africa/dar_es_salaam', 'Africa/Dar_es_Salaam'],
		['america/port-au-prince', 'America/Port-au-Prince'],
		['asia/kolkata', 'Asia/Kolkata'],
		['asia/calcutta', 'Asia/Calcutta'],
		['australia/act', 'Australia/ACT'],
		['america/knox_in', 'America/Knox_IN'],
		['Europe/Isle_Of_Man', 'Europe/Isle_of_Man'],
	])('%s → %s', (value, expected) => {
		const corrected = correctTimezoneCase(value);
		expect(corrected).toBe(expected);
		expect(isAreaCityTimezone(expected)).toBe(true);
	});

	test.each(['UTC', 'utc', 'us/eastern', 'etc/gmt+5', 'mars/olympus', 'europe/atlantis', ''])(
		'%j has no correction',
		(value) => {
			expect(correctTimezoneCase(value)).toBeUndefined();
		},
	);
});
