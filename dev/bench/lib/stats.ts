/** Small statistics for a handful of repetitions. */

export function median(values: number[]): number {
	if (!values.length) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** (max − min) / median: how far apart the repetitions were, 0 for one repetition. */
export function spread(values: number[]): number {
	if (values.length < 2) return 0;
	return (Math.max(...values) - Math.min(...values)) / median(values);
}

/** The median of paired ratios a[i] / b[i], measured side by side in the same repetition. */
export function pairedRatio(numerators: number[], denominators: number[]): number {
	return median(numerators.map((value, index) => value / denominators[index]));
}
