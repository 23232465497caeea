import type {
	ICredentialTestFunctions,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';

import type { Answer } from './answer';
import type { Attempt, SendOnce } from './exchange';

/** What every n8n context that runs our code offers to send a request. */
interface HttpHelpers {
	helpers: { httpRequest(options: IHttpRequestOptions): Promise<unknown> };
}

/** n8n's Request Options of a declarative node (proxy, certificates), passed on as the user set them. */
export type ClientOptions = Pick<IHttpRequestOptions, 'proxy' | 'skipSslCertificateValidation'>;

/**
 * Sends through n8n's HTTP client (its proxy, SSRF and certificate settings apply), with the key in
 * the header the transport sets. n8n's authenticated helper would replace our abort signal with
 * the execution's, and then a trickling body could outlast any timeout. The attempt's signal aborts
 * on the run's cancellation too (Transport.cancelled).
 */
export function viaN8n(context: HttpHelpers, client: ClientOptions = {}): SendOnce {
	return async (attempt: Attempt): Promise<Answer> => {
		const response = (await context.helpers.httpRequest({
			...client,
			method: attempt.method,
			url: attempt.url,
			qs: attempt.qs,
			headers: attempt.headers,
			body: attempt.body,
			encoding: 'text',
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: attempt.timeoutMs,
			abortSignal: attempt.signal,
			...(attempt.allowedDomains ? { allowedDomains: attempt.allowedDomains } : {}),
		})) as IN8nHttpFullResponse;
		return {
			statusCode: response.statusCode,
			headers: response.headers ?? {},
			text: textOf(response.body),
		};
	};
}

/**
 * Sends through the one helper n8n gives a credential test, its legacy `request`. That helper knows
 * no abort signal and its timeout only notices a silent socket, so the attempt's deadline is raced
 * against it: a server trickling its answer cannot keep the test spinning.
 */
export function viaCredentialTest(context: ICredentialTestFunctions): SendOnce {
	return async (attempt: Attempt): Promise<Answer> =>
		await Promise.race([legacyRequest(context, attempt), whenAborted(attempt.signal)]);
}

function whenAborted(signal: AbortSignal): Promise<never> {
	return new Promise((_resolve, reject) => {
		const abort = () => reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
		if (signal.aborted) abort();
		else signal.addEventListener('abort', abort, { once: true });
	});
}

async function legacyRequest(context: ICredentialTestFunctions, attempt: Attempt): Promise<Answer> {
	const response = (await context.helpers.request({
		method: attempt.method,
		uri: attempt.url,
		qs: attempt.qs,
		headers: attempt.headers,
		body: attempt.body,
		json: false,
		resolveWithFullResponse: true,
		simple: false,
		followRedirect: false,
		followAllRedirects: false,
		timeout: attempt.timeoutMs,
	})) as { statusCode: number; headers?: IDataObject; body?: unknown };
	return {
		statusCode: response.statusCode,
		headers: response.headers ?? {},
		text: textOf(response.body),
	};
}

function textOf(body: unknown): string {
	if (body === undefined || body === null) return '';
	if (typeof body === 'string') return body;
	if (body instanceof Uint8Array) return new TextDecoder().decode(body);
	if (body instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(body));
	return JSON.stringify(body);
}
