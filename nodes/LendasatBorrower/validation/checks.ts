import type { IDataObject } from 'n8n-workflow';

import {
	decodeBech32,
	looksLikeArkAddress,
	parseArkAddress,
	parseBitcoinAddress,
	parseBitcoinTransactionHex,
	PSBT_NOT_TRANSACTION,
	type BitcoinNetwork,
	type ParsedTransaction,
} from './bitcoin';
import { correctTimezoneCase, isAreaCityTimezone, resolveTimezone } from './timezones';
import { isOnCurveX } from '../encryption/secp256k1';

/**
 * Every `check…` function returns null when the value is acceptable, otherwise one or two
 * short sentences saying what is wrong and what a valid value looks like. Callers wrap the
 * text into an error that names the field and the item.
 *
 * Text values are checked after trimming surrounding whitespace, so callers must send
 * `String(value).trim()`; numbers that arrive as text are converted with `toNumber`.
 */
export type ValidationProblem = string | null;

export type ExpectedBitcoinNetwork = 'mainnet' | 'test' | 'any';

const NAME_EXAMPLE = '"Satoshi Nakamoto"';
const NAME_MAX_LENGTH = 100;
const EMAIL_EXAMPLE = 'name@example.com';
const EMAIL_MAX_LENGTH = 254;
const EMAIL_LOCAL_PART_MAX_LENGTH = 64;
const TIMEZONE_EXAMPLE = 'Europe/Berlin';
const UUID_EXAMPLE = '3f2b8c1e-9d4a-4b6f-8e2a-1c5d7f9a0b3e';
const AMOUNT_EXAMPLE = '250 or 250.5';
const DAYS_EXAMPLE = '30';
const MAX_DAYS = 36500;
const MAINNET_ADDRESS_EXAMPLE = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
const TEST_ADDRESS_EXAMPLE = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const STABLECOIN_ADDRESS_EXAMPLE = '0x52908400098527886E0F7030069857D2E4169EE7';
const STABLECOIN_ADDRESS_MIN_LENGTH = 20;
const STABLECOIN_ADDRESS_MAX_LENGTH = 128;
const JSON_OBJECT_EXAMPLE = '{"field": "value"}';
const EXCERPT_MAX_LENGTH = 40;

type CredentialNetwork = Exclude<ExpectedBitcoinNetwork, 'any'>;

const CREDENTIAL_ENVIRONMENTS: Record<CredentialNetwork, string> = {
	mainnet: 'Production (mainnet, addresses start with bc1, 1 or 3)',
	test: 'Development (test network, addresses start with tb1, m, n or 2)',
};

const NETWORK_DESCRIPTIONS: Record<BitcoinNetwork, string> = {
	mainnet: 'a mainnet',
	testnet: 'a test-network (testnet/signet)',
	regtest: 'a regtest',
};

// ---------------------------------------------------------------------------------------
// Text fields

export function checkName(value: unknown): ValidationProblem {
	if (typeof value !== 'string')
		return `Expected a name as text, like ${NAME_EXAMPLE}, got ${describeValue(value)}.`;
	const name = value.trim();
	if (name === '') return `Must not be empty. Enter a name like ${NAME_EXAMPLE}.`;
	if (/\p{Cc}/u.test(name)) {
		return `${describeValue(name)} contains a line break, tab or other control character. Enter a name like ${NAME_EXAMPLE}.`;
	}
	const length = characterCount(name);
	if (length > NAME_MAX_LENGTH) {
		return `Too long: ${length} characters, at most ${NAME_MAX_LENGTH} are allowed.`;
	}
	return null;
}

const EMAIL_LOCAL_PART_PATTERN =
	/^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN_LABEL_PATTERN = /^[\p{L}\p{N}]([\p{L}\p{N}-]*[\p{L}\p{N}])?$/u;
const TOP_LEVEL_DOMAIN_PATTERN = /^(\p{L}{2,}|xn--[a-z0-9-]+)$/iu;

export function checkEmail(value: unknown): ValidationProblem {
	const hint = ` An e-mail address looks like ${EMAIL_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected an e-mail address like ${EMAIL_EXAMPLE}, got ${describeValue(value)}.`;
	const email = value.trim();
	if (email === '') return `Must not be empty. Enter an e-mail address like ${EMAIL_EXAMPLE}.`;
	const shown = describeValue(email);
	if (/\s/.test(email)) return `${shown} contains spaces.${hint}`;
	const length = characterCount(email);
	if (length > EMAIL_MAX_LENGTH)
		return `Too long: ${length} characters, at most ${EMAIL_MAX_LENGTH} are allowed.`;
	const parts = email.split('@');
	if (parts.length === 1) return `${shown} has no @.${hint}`;
	if (parts.length > 2) return `${shown} has more than one @.${hint}`;
	const [localPart, domain] = parts;
	return checkEmailLocalPart(localPart, shown, hint) ?? checkEmailDomain(domain, shown, hint);
}

function checkEmailLocalPart(localPart: string, shown: string, hint: string): ValidationProblem {
	if (localPart === '') return `${shown} has nothing before the @.${hint}`;
	const length = characterCount(localPart);
	if (length > EMAIL_LOCAL_PART_MAX_LENGTH) {
		return `The part before the @ is too long: ${length} characters, at most ${EMAIL_LOCAL_PART_MAX_LENGTH} are allowed.`;
	}
	if (!EMAIL_LOCAL_PART_PATTERN.test(localPart)) {
		return `${shown} has characters or dots in the wrong place before the @.${hint}`;
	}
	return null;
}

function checkEmailDomain(domain: string, shown: string, hint: string): ValidationProblem {
	if (domain === '') return `${shown} has nothing after the @.${hint}`;
	const labels = domain.split('.');
	if (labels.length < 2) return `${shown} has no domain ending such as .com after the @.${hint}`;
	if (!labels.every((label) => DOMAIN_LABEL_PATTERN.test(label))) {
		return `${shown} has an invalid domain after the @.${hint}`;
	}
	if (!TOP_LEVEL_DOMAIN_PATTERN.test(labels[labels.length - 1])) {
		return `${shown} does not end in a real domain ending such as .com.${hint}`;
	}
	return null;
}

export function checkTimezone(value: unknown): ValidationProblem {
	if (typeof value !== 'string')
		return `Expected a time zone like ${TIMEZONE_EXAMPLE}, got ${describeValue(value)}.`;
	const zone = value.trim();
	if (zone === '') return `Must not be empty. Enter a time zone like ${TIMEZONE_EXAMPLE}.`;
	if (isAreaCityTimezone(zone)) return null;
	const shown = describeValue(zone);
	const correctlyCased = correctTimezoneCase(zone);
	if (correctlyCased !== undefined)
		return `${shown} has the wrong capitalisation; write it exactly as ${correctlyCased}.`;
	const equivalent = findEquivalentAreaCityTimezone(zone);
	if (equivalent !== undefined) {
		return `${shown} is not a time zone of the form Area/City; the matching one is ${equivalent}.`;
	}
	return (
		`${shown} is not a time zone of the form Area/City. Use a name like ${TIMEZONE_EXAMPLE} or America/New_York ` +
		'(UTC, GMT, abbreviations like EST and Etc/… zones are not accepted).'
	);
}

function findEquivalentAreaCityTimezone(zone: string): string | undefined {
	// Only names with a slash (US/Eastern) get one: "EST" resolving to America/Panama would mislead.
	if (!zone.includes('/')) return undefined;
	const resolved = resolveTimezone(zone);
	return resolved !== undefined && isAreaCityTimezone(resolved) ? resolved : undefined;
}

const REFERRAL_CODE_MAX_LENGTH = 64;

/** A referral code as Lendasat issues them (LAS-7KQ2M, or a partner's own word): one word of plain characters, exact case. */
export function checkReferralCode(value: unknown): ValidationProblem {
	const hint =
		' A referral code looks like LAS-7KQ2M; Lendasat compares it exactly, letter case included.';
	if (typeof value !== 'string')
		return `Expected a referral code as text, got ${describeValue(value)}.${hint}`;
	const code = value.trim();
	if (code === '') return `Must not be empty.${hint}`;
	const shown = describeValue(code);
	if (/\s/.test(code)) return `${shown} contains spaces.${hint}`;
	if (!PRINTABLE_ASCII_PATTERN.test(code))
		return `${shown} contains a character that does not belong in a referral code.${hint}`;
	if (code.length > REFERRAL_CODE_MAX_LENGTH)
		return `Too long: ${code.length} characters, at most ${REFERRAL_CODE_MAX_LENGTH}.${hint}`;
	return null;
}

const LOCALE_EXAMPLE = 'en-US';
/** A BCP-47 language tag of the usual shape: language, optional script, optional region (de-DE, zh-Hant-TW, es-419). */
const LOCALE_PATTERN = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|\d{3}))?$/;

/** A language tag such as en-US or de-DE (BCP-47: language, optional script, optional region). */
export function checkLocale(value: unknown): ValidationProblem {
	if (typeof value !== 'string')
		return `Expected a language tag like ${LOCALE_EXAMPLE}, got ${describeValue(value)}.`;
	const locale = value.trim();
	if (locale === '') return `Must not be empty. Enter a language tag like ${LOCALE_EXAMPLE}.`;
	if (LOCALE_PATTERN.test(locale)) return null;
	const shown = describeValue(locale);
	if (/_/.test(locale))
		return `${shown} uses an underscore; write the tag with a dash, like ${locale.replace(/_/g, '-')}.`;
	return `${shown} is not a language tag. Use a language, optionally with a region, like ${LOCALE_EXAMPLE}, de-DE or es.`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function checkUuid(value: unknown): ValidationProblem {
	const hint = ` An ID looks like ${UUID_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected an ID like ${UUID_EXAMPLE}, got ${describeValue(value)}.`;
	const id = value.trim();
	if (id === '') return `Must not be empty. Enter an ID like ${UUID_EXAMPLE}.`;
	if (UUID_PATTERN.test(id)) return null;
	const shown = describeValue(id);
	if (/\s/.test(id)) return `${shown} contains spaces.${hint}`;
	if (/^[0-9a-f]{32}$/i.test(id)) return `${shown} is missing the dashes.${hint}`;
	return `${shown} is not an ID of the form 8-4-4-4-12 hexadecimal characters.${hint}`;
}

/** What `checkText` asks of a piece of free text a person writes (a dispute's reason, a message). */
export interface TextRules {
	/** As a message names it, e.g. "a reason". */
	what: string;
	example: string;
	maxLength: number;
	/** Whether line breaks and tabs belong in it (a message), or it is one line (a reason). */
	multiline: boolean;
}

/**
 * Free text for other people to read: not empty, at most `maxLength` characters, no control
 * characters (line breaks and tabs only where `multiline`), and no Lendasat API key, which would
 * be handed to whoever reads the text. The key is never repeated in the message.
 */
export function checkText(rules: TextRules): (value: unknown) => ValidationProblem {
	const hint = ` Enter ${rules.what}, e.g. ${rules.example}.`;
	return (value) => {
		if (typeof value !== 'string' && typeof value !== 'number')
			return `Expected ${rules.what} as text, got ${describeValue(value)}.${hint}`;
		const text = String(value).trim();
		if (text === '') return `Must not be empty.${hint}`;
		if (holdsLendasatKey(text)) {
			return 'Holds what looks like a Lendasat API key (not shown). Others read this text: remove the key.';
		}
		const control = rules.multiline ? /[^\P{Cc}\t\n\r]/u : /\p{Cc}/u;
		if (control.test(text)) {
			return rules.multiline
				? `${describeValue(text)} contains a control character other than a line break or tab.${hint}`
				: `${describeValue(text)} contains a line break, tab or other control character: keep it to one line.${hint}`;
		}
		const length = characterCount(text);
		if (length > rules.maxLength)
			return `Too long: ${length} characters, at most ${rules.maxLength} are allowed.`;
		return null;
	};
}

// ---------------------------------------------------------------------------------------
// Numbers

const PLAIN_DECIMAL_PATTERN = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * The number a numeric parameter holds: numbers as they are, text only when it is a plain
 * decimal such as "250.5" (expressions often yield text). NaN for anything else.
 */
export function toNumber(value: unknown): number {
	if (typeof value === 'number') return value;
	if (typeof value === 'string' && PLAIN_DECIMAL_PATTERN.test(value.trim()))
		return Number(value.trim());
	return Number.NaN;
}

/** The largest amount of money the node sends (one billion in the loan asset): anything above is a typo. */
export const MAX_MONEY_AMOUNT = 1_000_000_000;

/**
 * A sum of money: finite, more than 0, at most two decimal places (Lendasat rounds amounts to cents,
 * so 0.001 would be sent as nothing) and at most MAX_MONEY_AMOUNT.
 */
export function checkPositiveAmount(value: unknown): ValidationProblem {
	const amount = toNumber(value);
	if (Number.isNaN(amount)) return describeNotANumber(value, `an amount like ${AMOUNT_EXAMPLE}`);
	if (!Number.isFinite(amount))
		return `Must be a finite amount like ${AMOUNT_EXAMPLE}, got ${describeValue(value)}.`;
	if (amount <= 0) return `Must be greater than 0, got ${describeValue(value)}.`;
	if (amount > MAX_MONEY_AMOUNT)
		return `Must be at most ${MAX_MONEY_AMOUNT.toLocaleString('en-US')}, got ${describeValue(value)}.`;
	if (!hasAtMostTwoDecimals(amount))
		return `Must have at most 2 decimal places (cents), like ${AMOUNT_EXAMPLE}, got ${describeValue(value)}.`;
	if (toCents(amount) <= 0) return `Must be at least 0.01, got ${describeValue(value)}.`;
	return null;
}

/** Two decimal places, allowing for the binary noise of arithmetic in an expression (0.1 + 0.2). */
function hasAtMostTwoDecimals(amount: number): boolean {
	return Math.abs(amount - toCents(amount)) <= 1e-9 * Math.max(1, Math.abs(amount));
}

/** An amount of money as sent: rounded to cents. */
export function toCents(amount: number): number {
	return Math.round(amount * 100) / 100;
}

/**
 * An amount of money with a lower bound of its own: a checked amount (cents, above 0) of at most
 * `max` (the caller says why in `maxReason`, e.g. "a Moon card holds at most 5000 USD").
 */
export function checkCentAmount(
	max: number,
	maxReason: string,
): (value: unknown) => ValidationProblem {
	return (value) => {
		const problem = checkPositiveAmount(value);
		if (problem) return problem;
		return toNumber(value) > max
			? `Must be at most ${max}, got ${describeValue(value)}: ${maxReason}.`
			: null;
	};
}

export function checkWholeDays(value: unknown): ValidationProblem {
	const days = toNumber(value);
	if (Number.isNaN(days))
		return describeNotANumber(value, `a whole number of days like ${DAYS_EXAMPLE}`);
	if (!Number.isInteger(days))
		return `Must be a whole number of days like ${DAYS_EXAMPLE}, got ${describeValue(value)}.`;
	if (days < 1) return `Must be at least 1 day, got ${describeValue(value)}.`;
	if (days > MAX_DAYS)
		return `Must be at most ${MAX_DAYS} days (100 years), got ${describeValue(value)}.`;
	return null;
}

/** Days before a due date: a whole number from 0 (only what is due now or overdue) up to 100 years. */
export function checkDaysAhead(value: unknown): ValidationProblem {
	const days = toNumber(value);
	if (Number.isNaN(days)) return describeNotANumber(value, 'a whole number of days like 3');
	if (!Number.isInteger(days))
		return `Must be a whole number of days like 3, got ${describeValue(value)}.`;
	if (days < 0) {
		return `Must not be negative, got ${describeValue(value)}. Use 0 for installments that are due now or overdue.`;
	}
	if (days > MAX_DAYS)
		return `Must be at most ${MAX_DAYS} days (100 years), got ${describeValue(value)}.`;
	return null;
}

/** A yearly interest rate as a decimal fraction: 0.12 is 12 %. */
export function checkInterestRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	const example = 'a yearly rate as a decimal like 0.12 (12%)';
	if (Number.isNaN(rate)) return `Expected ${example}, got ${describeValue(value)}.`;
	if (rate < 0) return `Must not be negative, got ${describeValue(value)}.`;
	if (rate > 1)
		return `${describeValue(value)} is more than 1: enter the yearly rate as a decimal, e.g. 0.12 for 12%.`;
	return null;
}

/** A loan-to-value ratio as a decimal fraction from 0 to 1, as the API takes it: 0.5 lends half the collateral's value. */
export function checkLoanToValue(value: unknown): ValidationProblem {
	const ltv = toNumber(value);
	const example = 'a decimal like 0.5 (50%)';
	if (Number.isNaN(ltv)) return describeNotANumber(value, example);
	if (ltv < 0)
		return `Must not be negative, got ${describeValue(value)}: enter the loan-to-value ratio as ${example}.`;
	if (ltv > 1)
		return `${describeValue(value)} is more than 1: enter the loan-to-value ratio as a decimal, e.g. 0.5 for 50%.`;
	return null;
}

/** Two values of a range, each already checked on its own: the minimum must not exceed the maximum. */
/** A minimum against its maximum; the problem follows the minimum's own label, so it does not repeat it. */
export function checkRange(min: number, max: number, maxLabel: string): ValidationProblem {
	if (min <= max) return null;
	return `${min} is more than ${maxLabel} (${max}); the minimum must not exceed the maximum.`;
}

function describeNotANumber(value: unknown, expected: string): string {
	if (typeof value === 'string' && value.trim() === '')
		return `Must not be empty. Enter ${expected}.`;
	if (typeof value === 'string' && /^[-+]?\d+,\d+$/.test(value.trim())) {
		return `${describeValue(value)} uses a comma; write the decimal separator as a dot, like 250.5.`;
	}
	return `Expected ${expected}, got ${describeValue(value)}.`;
}

// ---------------------------------------------------------------------------------------
// Addresses

/**
 * `expected` is the network of the credential's environment: 'test' accepts testnet, signet
 * and regtest addresses. Addresses with a SegWit version no wallet uses yet are rejected,
 * since coins sent there could be lost.
 */
export function checkBitcoinAddress(
	value: unknown,
	expected: ExpectedBitcoinNetwork,
): ValidationProblem {
	const example = expected === 'test' ? TEST_ADDRESS_EXAMPLE : MAINNET_ADDRESS_EXAMPLE;
	if (typeof value !== 'string')
		return `Expected a Bitcoin address like ${example}, got ${describeValue(value)}.`;
	const address = value.trim();
	if (address === '') return `Must not be empty. Enter a Bitcoin address like ${example}.`;
	const shown = describeValue(address);
	const parsed = parseBitcoinAddress(address);
	if ('error' in parsed) return `${shown} is not a valid Bitcoin address: ${parsed.error}.`;
	if (parsed.type === 'witness-unknown') {
		return `${shown} uses a SegWit version that wallets do not support yet; coins sent there could be lost. Use an address like ${example}.`;
	}
	if (expected !== 'any' && !isOnEnvironmentNetwork(parsed.network, expected)) {
		return `${shown} is ${NETWORK_DESCRIPTIONS[parsed.network]} address, but the credential's environment is ${CREDENTIAL_ENVIRONMENTS[expected]}.`;
	}
	return null;
}

function isOnEnvironmentNetwork(network: BitcoinNetwork, environment: CredentialNetwork): boolean {
	return environment === 'mainnet' ? network === 'mainnet' : network !== 'mainnet';
}

/**
 * Which kind of address a loan's collateral goes back to: an on-chain Bitcoin address (offers with
 * collateral_asset BitcoinBtc), an Ark address (ArkadeBtc), or either where the offer is not known.
 */
export type CollateralAddressKind = 'onchain' | 'ark' | 'either';

const ARK_PREFIXES: Record<CredentialNetwork, string> = { mainnet: 'ark1…', test: 'tark1…' };

function arkPrefixFor(expected: ExpectedBitcoinNetwork): string {
	return expected === 'any' ? 'ark1… or tark1…' : ARK_PREFIXES[expected];
}

function onchainExampleFor(expected: ExpectedBitcoinNetwork): string {
	return expected === 'test' ? TEST_ADDRESS_EXAMPLE : MAINNET_ADDRESS_EXAMPLE;
}

/**
 * An Ark address (Arkade collateral): bech32m `ark1…` on mainnet, `tark1…` on the test networks,
 * holding version 0 and two x-only keys on secp256k1. `expected` is the credential's network.
 */
export function checkArkAddress(
	value: unknown,
	expected: ExpectedBitcoinNetwork,
): ValidationProblem {
	const hint = ` Enter the Ark address (${arkPrefixFor(expected)}, about 114 characters) your Ark wallet gives you.`;
	if (typeof value !== 'string')
		return `Expected an Ark address, got ${describeValue(value)}.${hint}`;
	const address = value.trim();
	if (address === '') return `Must not be empty.${hint}`;
	const shown = describeValue(address);
	const parsed = parseArkAddress(address);
	if ('error' in parsed) return `${shown} is not a valid Ark address: ${parsed.error}.${hint}`;
	const offCurve = [
		['server key', parsed.serverKey],
		['VTXO key', parsed.vtxoTaprootKey],
	].find(([, key]) => !isOnCurveX(BigInt(`0x${key}`)));
	if (offCurve) {
		return `${shown} is not a valid Ark address: its ${offCurve[0]} is not a point on the secp256k1 curve, so no Ark wallet made it.${hint}`;
	}
	if (expected !== 'any' && parsed.network !== expected) {
		return `${shown} is ${parsed.network === 'mainnet' ? 'a mainnet' : 'a test-network'} Ark address, but the credential's environment is ${CREDENTIAL_ENVIRONMENTS[expected]}; its Ark addresses start with ${ARK_PREFIXES[expected]}.`;
	}
	return null;
}

/**
 * The address the collateral goes back to, of the kind the offer takes (see CollateralAddressKind) and
 * on the credential's network. Given the wrong kind, the problem says which kind the offer takes.
 */
export function checkCollateralAddress(
	value: unknown,
	expected: ExpectedBitcoinNetwork,
	kind: CollateralAddressKind,
): ValidationProblem {
	const text = typeof value === 'string' ? value.trim() : undefined;
	const isArk = text !== undefined && looksLikeArkAddress(text);
	if (kind === 'ark') {
		if (text !== undefined && !isArk && checkBitcoinAddress(text, 'any') === null) {
			return `This offer takes Arkade collateral: enter an Ark address (${arkPrefixFor(expected)}) from your Ark wallet, not ${describeValue(text)}, which is an on-chain Bitcoin address.`;
		}
		return checkArkAddress(value, expected);
	}
	if (isArk) {
		if (kind === 'onchain') {
			return `This offer takes on-chain Bitcoin collateral: enter a Bitcoin address like ${onchainExampleFor(expected)}, not ${describeValue(text)}, which is an Ark address (only for Arkade offers).`;
		}
		return checkArkAddress(value, expected);
	}
	const problem = checkBitcoinAddress(value, expected);
	return problem && kind === 'either' && text !== undefined && text !== ''
		? `${problem} For an Arkade offer, enter an Ark address (${arkPrefixFor(expected)}) instead.`
		: problem;
}

const PRINTABLE_ASCII_PATTERN = /^[\x21-\x7e]+$/;
const HEX_ADDRESS_PATTERN = /^0x[0-9a-f]{1,64}$/i;

/**
 * Loose sanity check for an address on a stablecoin chain (EVM, Starknet, Solana, Liquid…);
 * the chain itself checks the details.
 */
export function checkStablecoinAddress(value: unknown): ValidationProblem {
	const hint = ` A wallet address looks like ${STABLECOIN_ADDRESS_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected a wallet address like ${STABLECOIN_ADDRESS_EXAMPLE}, got ${describeValue(value)}.`;
	const address = value.trim();
	if (address === '')
		return `Must not be empty. Enter a wallet address like ${STABLECOIN_ADDRESS_EXAMPLE}.`;
	const shown = describeValue(address);
	if (/\s/.test(address)) return `${shown} contains spaces.${hint}`;
	if (!PRINTABLE_ASCII_PATTERN.test(address)) {
		return `${shown} contains a character that does not belong in an address (only plain letters, digits and symbols).${hint}`;
	}
	const length = address.length;
	if (length < STABLECOIN_ADDRESS_MIN_LENGTH) {
		return `${shown} is too short for a wallet address: ${length} characters, at least ${STABLECOIN_ADDRESS_MIN_LENGTH}.${hint}`;
	}
	if (length > STABLECOIN_ADDRESS_MAX_LENGTH) {
		return `Too long for a wallet address: ${length} characters, at most ${STABLECOIN_ADDRESS_MAX_LENGTH}.${hint}`;
	}
	if (/^0x/i.test(address) && !HEX_ADDRESS_PATTERN.test(address)) {
		return `${shown} starts with 0x, so it must be 0x followed by up to 64 hexadecimal characters (0-9, a-f).${hint}`;
	}
	return null;
}

// ---------------------------------------------------------------------------------------
// Keys

const DERIVATION_PATH_EXAMPLE = "m/84'/0'/0'/0/0";
const MAX_CHILD_INDEX = 2 ** 31 - 1;

/**
 * A compressed secp256k1 public key in hex (33 bytes: 02 or 03, then the x coordinate). The x
 * coordinate must lie on the curve, which catches most typos in a key pasted by hand.
 */
export function checkCompressedPublicKey(value: unknown): ValidationProblem {
	const hint =
		' A compressed public key is 66 hexadecimal characters starting with 02 or 03, like 02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5.';
	if (typeof value !== 'string')
		return `Expected a public key as text, got ${describeValue(value)}.${hint}`;
	const key = value.trim();
	if (key === '') return `Must not be empty.${hint}`;
	const shown = describeValue(key);
	if (/\s/.test(key)) return `${shown} contains spaces.${hint}`;
	if (!/^[0-9a-f]+$/i.test(key)) return `${shown} is not hexadecimal (only 0-9 and a-f).${hint}`;
	if (key.length === 130 && /^04/.test(key))
		return `${shown} is an uncompressed key; use its compressed form.${hint}`;
	if (key.length !== 66) return `${shown} has ${key.length} characters instead of 66.${hint}`;
	if (!/^0[23]/.test(key))
		return `${shown} starts with ${key.slice(0, 2)} instead of 02 or 03.${hint}`;
	if (!isOnCurveX(BigInt(`0x${key.slice(2)}`)))
		return `${shown} is not a point on the secp256k1 curve: check for a typo.${hint}`;
	return null;
}

/** A BIP-32 derivation path from the master key: m, then child indexes, hardened ones marked ', h or H. */
export function checkDerivationPath(value: unknown): ValidationProblem {
	const hint = ` A derivation path looks like ${DERIVATION_PATH_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected a derivation path as text, got ${describeValue(value)}.${hint}`;
	const path = value.trim();
	if (path === '') return `Must not be empty.${hint}`;
	const shown = describeValue(path);
	if (/\s/.test(path)) return `${shown} contains spaces.${hint}`;
	const [root, ...steps] = path.split('/');
	if (root !== 'm') return `${shown} must start with m/.${hint}`;
	if (steps.length === 0) return `${shown} names no child key after m.${hint}`;
	for (const step of steps) {
		const match = /^(\d+)(['hH]?)$/.exec(step);
		if (!match)
			return `${shown} has ${describeValue(step)} where a child index like 84' or 0 belongs.${hint}`;
		if (Number(match[1]) > MAX_CHILD_INDEX)
			return `${shown}: index ${match[1]} is larger than ${MAX_CHILD_INDEX}.${hint}`;
	}
	return null;
}

const NPUB_EXAMPLE = 'npub10elfcs4fr0l0r8af98jlmgdh9c8tcxjvz9qkw038js35mp4dma8qzvjptg';
/** 32 bytes in 5-bit words: 52 words, the last one carrying 4 padding bits. */
const NPUB_WORDS = 52;

/** A Nostr public key in NIP-19 form: bech32 (not bech32m) "npub1…" holding a 32-byte x coordinate on secp256k1. */
export function checkNpub(value: unknown): ValidationProblem {
	const hint = ` A Nostr public key looks like ${NPUB_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected a Nostr public key as text, got ${describeValue(value)}.${hint}`;
	const npub = value.trim();
	if (npub === '') return `Must not be empty.${hint}`;
	// Never repeated in a message: an nsec is the private key itself.
	if (/^nsec1/i.test(npub))
		return `This is a Nostr private key (nsec1…): never enter it anywhere. Enter your public key instead.${hint}`;
	const shown = describeValue(npub);
	if (/\s/.test(npub)) return `${shown} contains spaces.${hint}`;
	if (/^[0-9a-f]{64}$/i.test(npub)) return `${shown} is a hex key; enter its npub1… form.${hint}`;
	if (!npub.toLowerCase().startsWith('npub1')) return `${shown} does not start with npub1.${hint}`;
	const decoded = decodeBech32(npub);
	if ('error' in decoded) return `${shown} is not a valid npub: ${decoded.error}.${hint}`;
	if (decoded.encoding !== 'bech32')
		return `${shown} uses the bech32m checksum; an npub uses bech32.${hint}`;
	const { words } = decoded;
	if (words.length !== NPUB_WORDS || (words[NPUB_WORDS - 1] & 0x0f) !== 0) {
		return `${shown} does not hold a 32-byte key (wrong length).${hint}`;
	}
	const x = words.reduce((accumulator, word) => (accumulator << 5n) | BigInt(word), 0n) >> 4n;
	if (!isOnCurveX(x))
		return `${shown} is not a point on the secp256k1 curve: check for a typo.${hint}`;
	return null;
}

/** A value of one of an option list's values, as an expression may give it. */
export function checkOneOf(allowed: readonly string[]): (value: unknown) => ValidationProblem {
	return (value) => {
		const text = typeof value === 'string' ? value.trim() : value;
		if (typeof text === 'string' && allowed.includes(text)) return null;
		return `Expected one of ${allowed.join(', ')}, got ${describeValue(value)}.`;
	};
}

// ---------------------------------------------------------------------------------------
// Bitcoin transactions

const TXID_EXAMPLE = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
const TXID_LENGTH = 64;
const TXID_PATTERN = new RegExp(`^[0-9a-f]{${TXID_LENGTH}}$`, 'i');
const FEE_RATE_EXAMPLE = '5';
/** Far above any fee rate Bitcoin has needed; catches a total fee in sats typed as a rate. */
export const MAX_FEE_RATE = 10_000;
/** Bitcoin nodes relay no transaction heavier than this (policy MAX_STANDARD_TX_WEIGHT). */
const MAX_STANDARD_TX_WEIGHT = 400_000;
/** Twice the hex of the largest standard transaction: anything longer is not worth parsing. */
const MAX_TRANSACTION_HEX_LENGTH = 2 * MAX_STANDARD_TX_WEIGHT;

/** A Bitcoin transaction ID: exactly 64 hexadecimal characters, as block explorers and wallets show it. */
export function checkTxid(value: unknown): ValidationProblem {
	const hint = ` A Bitcoin transaction ID is 64 hexadecimal characters, like ${TXID_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected a transaction ID as text, got ${describeValue(value)}.${hint}`;
	const txid = value.trim();
	if (txid === '') return `Must not be empty.${hint}`;
	const shown = describeValue(txid);
	if (/\s/.test(txid)) return `${shown} contains spaces or line breaks.${hint}`;
	if (/^0x/i.test(txid))
		return `${shown} starts with 0x, like an Ethereum hash; Bitcoin transaction IDs have no prefix.${hint}`;
	if (!/^[0-9a-f]+$/i.test(txid)) return `${shown} is not hexadecimal (only 0-9 and a-f).${hint}`;
	if (txid.length > TXID_LENGTH && !('error' in parseBitcoinTransactionHex(txid))) {
		return `${shown} is a whole transaction (${txid.length / 2} bytes), not its ID.${hint}`;
	}
	if (txid.length !== TXID_LENGTH)
		return `${shown} has ${txid.length} characters instead of ${TXID_LENGTH}.${hint}`;
	return null;
}

/** Why a value in an answer is no transaction ID (64 hexadecimal characters), or undefined when it is one. */
export function txidAnswerProblem(value: unknown, field: string): string | undefined {
	return typeof value === 'string' && TXID_PATTERN.test(value)
		? undefined
		: `its ${field} ${describeValue(value)} is not a transaction ID (${TXID_LENGTH} hexadecimal characters)`;
}

/** A fee rate in satoshis per virtual byte: a whole number from 1 to MAX_FEE_RATE. */
export function checkFeeRate(value: unknown): ValidationProblem {
	const rate = toNumber(value);
	if (Number.isNaN(rate))
		return describeNotANumber(value, `a whole number of sat/vB like ${FEE_RATE_EXAMPLE}`);
	if (!Number.isInteger(rate)) {
		return `Must be a whole number of sat/vB like ${FEE_RATE_EXAMPLE} (Lendasat takes no fractions), got ${describeValue(value)}.`;
	}
	if (rate < 1) return `Must be at least 1 sat/vB, got ${describeValue(value)}.`;
	if (rate > MAX_FEE_RATE) {
		return `Must be at most ${MAX_FEE_RATE} sat/vB, got ${describeValue(value)}. This is the fee per virtual byte, not the total fee in sats.`;
	}
	return null;
}

/** Hex as pasted, wrapped or indented: white space carries no meaning in it and is left out. */
export function compactHex(value: string): string {
	return value.replace(/\s+/g, '');
}

/**
 * A fully signed raw Bitcoin transaction in hex: it must parse as one whole transaction (not a
 * PSBT), and every input must carry a signature (a scriptSig or a witness).
 */
export function checkSignedTransaction(value: unknown): ValidationProblem {
	const hint =
		' Expected the signed raw transaction in hex (e.g. 02000000000101…), as your wallet or signer gives it after finalizing the PSBT.';
	if (typeof value !== 'string')
		return `Expected a transaction in hex, got ${describeValue(value)}.${hint}`;
	const hex = compactHex(value);
	if (hex === '') return `Must not be empty.${hint}`;
	const shown = describeValue(hex);
	if (/^0x/i.test(hex)) return `${shown} starts with 0x: send the hex without a prefix.${hint}`;
	if (hex.length > MAX_TRANSACTION_HEX_LENGTH) {
		return `${shown} is ${Math.ceil(hex.length / 2)} bytes, larger than any transaction Bitcoin nodes relay.${hint}`;
	}
	const parsed = parseBitcoinTransactionHex(hex);
	if ('error' in parsed) {
		if (parsed.error === PSBT_NOT_TRANSACTION) {
			return `${shown}: ${PSBT_NOT_TRANSACTION} (your wallet or signer does this after signing; Bitcoin Core: finalizepsbt, which returns the transaction as hex).`;
		}
		return `${shown} is not a Bitcoin transaction (${parsed.error}).${hint}`;
	}
	return signatureProblem(parsed, shown) ?? weightProblem(parsed, shown);
}

function signatureProblem(transaction: ParsedTransaction, shown: string): ValidationProblem {
	const unsigned = transaction.inputs.findIndex(
		(input) => input.scriptSigBytes === 0 && input.witnessItems === 0,
	);
	if (unsigned < 0) return null;
	const which =
		transaction.inputs.length === 1
			? 'Its input'
			: `Input ${unsigned + 1} of ${transaction.inputs.length}`;
	return (
		`${shown} is a transaction, but not a signed one: ${which} carries no signature (no scriptSig and no witness). ` +
		'Sign the PSBT with the key behind borrower_pk, finalize it, and send the resulting transaction.'
	);
}

function weightProblem(transaction: ParsedTransaction, shown: string): ValidationProblem {
	if (transaction.weight <= MAX_STANDARD_TX_WEIGHT) return null;
	return `${shown} weighs ${transaction.weight} weight units, more than the ${MAX_STANDARD_TX_WEIGHT} Bitcoin nodes relay.`;
}

// ---------------------------------------------------------------------------------------
// JSON

/**
 * Reads an "extra body fields" option: an object n8n already parsed, or JSON text for one.
 * Blank text means no extra fields.
 */
export function parseJsonObject(
	value: unknown,
): { value: Record<string, unknown> } | { error: string } {
	if (isPlainObject(value)) return { value };
	if (typeof value !== 'string') return { error: describeNotAJsonObject(value) };
	if (value.trim() === '') return { value: {} };
	let parsed: unknown;
	try {
		parsed = JSON.parse(value);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		return { error: `Not valid JSON: ${reason}. Expected an object like ${JSON_OBJECT_EXAMPLE}.` };
	}
	return isPlainObject(parsed) ? { value: parsed } : { error: describeNotAJsonObject(parsed) };
}

function describeNotAJsonObject(value: unknown): string {
	return `Expected a JSON object like ${JSON_OBJECT_EXAMPLE}, got ${describeValue(value)}.`;
}

/** A JSON object: anything but null, a list or a primitive. */
export function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	// The tag rather than the prototype, so objects built in an expression sandbox's realm pass.
	return Object.prototype.toString.call(value) === '[object Object]';
}

// ---------------------------------------------------------------------------------------
// Messages

/** A short, safe rendering of a value for messages: text quoted and cut at 40 characters with "…". */
export function describeValue(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (typeof value === 'string' && LENDASAT_KEY_PATTERN.test(value))
		return 'a text holding a Lendasat API key (not shown)';
	if (typeof value === 'string') return JSON.stringify(cutToExcerpt(value));
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
		return String(value);
	if (typeof value === 'function') return 'a function';
	if (typeof value === 'symbol') return 'a symbol';
	const json = toJsonOrUndefined(value);
	if (json !== undefined && LENDASAT_KEY_PATTERN.test(json))
		return 'a value holding a Lendasat API key (not shown)';
	return cutToExcerpt(json ?? (Array.isArray(value) ? 'a list' : 'an object'));
}

/**
 * A Lendasat key pasted into the wrong field is never repeated in an error: a borrower key, a
 * partner master key (las- and letters with a digit, as the docs' las-BTC21; not "las-vegas") or a
 * legacy key (ldst-acc-…).
 */
const LENDASAT_KEY_PATTERN = /lndst_sk_|\blas-(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{5,}|\bldst-acc-/i;

/** Whether text holds something shaped like a Lendasat key. */
export function holdsLendasatKey(text: string): boolean {
	return LENDASAT_KEY_PATTERN.test(text);
}

function cutToExcerpt(text: string): string {
	const characters = [...text];
	if (characters.length <= EXCERPT_MAX_LENGTH) return text;
	return `${characters.slice(0, EXCERPT_MAX_LENGTH).join('')}…`;
}

function toJsonOrUndefined(value: unknown): string | undefined {
	try {
		return JSON.stringify(value);
	} catch {
		return undefined;
	}
}

function characterCount(text: string): number {
	return [...text].length;
}
