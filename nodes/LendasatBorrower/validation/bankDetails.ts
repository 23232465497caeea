import { describeValue, type ValidationProblem } from './checks';

/** Bank details are written on a transfer: plain text on one line, of a sensible length. */
export function checkBankText(maxLength: number, example: string) {
	return (value: unknown): ValidationProblem => {
		if (typeof value !== 'string' && typeof value !== 'number')
			return `Expected text like ${example}, got ${describeValue(value)}.`;
		const text = String(value).trim();
		if (text === '') return `Must not be empty. Enter something like ${example}.`;
		if (/\p{Cc}/u.test(text))
			return `${describeValue(text)} contains a line break, tab or other control character.`;
		const length = [...text].length;
		if (length > maxLength)
			return `Too long: ${length} characters, at most ${maxLength} are allowed.`;
		return null;
	};
}

const IBAN_EXAMPLE = 'DE89 3704 0044 0532 0130 00';

/** An IBAN without its spaces, in upper case, as banks print it grouped. */
export function compactIban(value: string): string {
	return value.replace(/\s+/g, '').toUpperCase();
}

/** An IBAN (ISO 13616): country code, two check digits, up to 30 letters and digits, checksum mod 97. */
export function checkIban(value: unknown): ValidationProblem {
	const hint = ` An IBAN looks like ${IBAN_EXAMPLE}.`;
	if (typeof value !== 'string')
		return `Expected an IBAN as text, got ${describeValue(value)}.${hint}`;
	const iban = compactIban(value);
	if (iban === '') return `Must not be empty.${hint}`;
	const shown = describeValue(value.trim());
	if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban))
		return `${shown} is not an IBAN: two letters, two digits, then 11 to 30 letters and digits.${hint}`;
	const rearranged = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) =>
		String(letter.charCodeAt(0) - 55),
	);
	let remainder = 0;
	for (const digit of rearranged) remainder = (remainder * 10 + Number(digit)) % 97;
	return remainder === 1
		? null
		: `${shown} has a wrong check digit: a character is mistyped.${hint}`;
}

/** A BIC / SWIFT code (ISO 9362): 4 letters of the bank, 2 of the country, 2 of the place, maybe 3 of the branch. */
export function checkBic(value: unknown): ValidationProblem {
	const hint = ' A BIC looks like DEUTDEFF or DEUTDEFF500.';
	if (typeof value !== 'string')
		return `Expected a BIC as text, got ${describeValue(value)}.${hint}`;
	const bic = value.trim().toUpperCase();
	if (bic === '') return `Must not be empty.${hint}`;
	if (!/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic))
		return `${describeValue(value.trim())} is not a BIC: 8 or 11 letters and digits, the first six letters.${hint}`;
	return null;
}

/** A bank account number outside the IBAN system: letters, digits, spaces, dashes and slashes. */
export function checkAccountNumber(value: unknown): ValidationProblem {
	const hint = ' An account number looks like 000123456789.';
	if (typeof value !== 'string' && typeof value !== 'number')
		return `Expected an account number as text, got ${describeValue(value)}.${hint}`;
	const number = String(value).trim();
	if (number === '') return `Must not be empty.${hint}`;
	if (!/^[A-Za-z0-9][A-Za-z0-9 /-]{0,63}$/.test(number))
		return `${describeValue(number)} is not an account number: up to 64 letters, digits, spaces, dashes or slashes.${hint}`;
	return null;
}
