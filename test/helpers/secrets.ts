import { inspect } from 'node:util';

/**
 * Everything a user or a log could see of a run: output items, the error with its cause chain,
 * serialized both as JSON and as Node prints it. A key must appear in none of it.
 */
export function everythingVisible(...values: unknown[]): string {
	return values
		.map((value) => {
			let json = '';
			try {
				json = JSON.stringify(value, (_key, inner) =>
					inner instanceof Error
						? { ...inner, message: inner.message, stack: inner.stack, cause: inner.cause }
						: inner,
				);
			} catch {
				json = '';
			}
			return `${json}\n${inspect(value, { depth: 12, showHidden: false })}`;
		})
		.join('\n');
}
