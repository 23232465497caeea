/** A list parameter as text values: a multi-select gives an array, an expression may give "A, B". */
export function listOf(value: unknown): string[] {
	const values = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
	return values.map((entry) => String(entry).trim()).filter(Boolean);
}
