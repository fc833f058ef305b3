import { rootCertificates } from 'node:tls';
import { AuthError, type INetworkModule, type NetworkRequestOptions, type NetworkResponse } from '@azure/msal-node';
import { Agent, request } from 'undici';

export interface MsalNetworkClientOptions {
  /** PEM of an extra CA to trust besides the public roots, e.g. the `ca.pem` a self-hosted core generated. */
  ca?: string;
  /** Per-request limit when MSAL gives none (default 15 s). */
  timeoutMs?: number;
}

/** MSAL's network module, plus `close()` to release pooled connections when the process should exit promptly. */
export interface MsalNetworkClient extends INetworkModule {
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** MSAL reads every answer as JSON (tokens, errors, discovery); anything else, like a proxy's HTML page, is refused. */
function parseJson(url: string, status: number, text: string, correlationId: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AuthError('token_parsing_error', correlationId, `The answer from ${url} (HTTP ${status}) is not JSON.`);
  }
}

/** A transport failure, with the TLS or socket error code kept in the message so a caller can name the fix. */
function networkError(url: string, error: unknown, timeoutMs: number, correlationId: string): AuthError {
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new AuthError('network_error', correlationId, `Request to ${url} timed out after ${timeoutMs} ms.`);
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  const failure = new AuthError('network_error', correlationId, `Request to ${url} failed: ${message}${code ? ` (${code})` : ''}`);
  failure.cause = error;
  return failure;
}

/**
 * An MSAL `INetworkModule` on undici, so MSAL can reach an issuer whose certificate comes from a private CA (a
 * self-hosted core's generated `ca.pem`) while still trusting the public roots for Entra ID.
 *
 * @example Client credentials against a self-hosted core's built-in issuer (tenant `tid`, core at
 * `https://127.0.0.1:8787`, CA file from `memory serve`):
 * ```ts
 * const networkClient = createMsalNetworkClient({ ca: await readFile(caFile, 'utf8') });
 * const app = new ConfidentialClientApplication({
 *   auth: {
 *     clientId,
 *     clientSecret,
 *     authority: `https://127.0.0.1:8787/${tid}`,
 *     // Host (and port) of the authority: MSAL then trusts it without asking login.microsoftonline.com
 *     // (instance discovery) and reads `${authority}/v2.0/.well-known/openid-configuration` from the core.
 *     knownAuthorities: ['127.0.0.1:8787'],
 *   },
 *   system: { networkClient },
 * });
 * const { accessToken } = await app.acquireTokenByClientCredential({ scopes: ['api://meeting-memory/.default'] });
 * await networkClient.close();
 * ```
 * Against Entra ID use `authority: 'https://login.microsoftonline.com/<tid>'`, no `knownAuthorities`, and the
 * API's `<application id URI>/.default` scope; the network client is optional there.
 */
export function createMsalNetworkClient(options: MsalNetworkClientOptions = {}): MsalNetworkClient {
  // A `ca` option replaces Node's trust store, so the public roots are passed along with the extra CA.
  const agent = new Agent(options.ca ? { connect: { ca: [...rootCertificates, options.ca] } } : {});
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function send<T>(
    method: 'GET' | 'POST',
    url: string,
    requestOptions: NetworkRequestOptions | undefined,
    timeout = defaultTimeout,
  ): Promise<NetworkResponse<T>> {
    const correlationId = requestOptions?.correlationId ?? '';
    let response;
    let text: string;
    try {
      response = await request(url, {
        method,
        headers: requestOptions?.headers,
        body: method === 'POST' ? (requestOptions?.body ?? '') : undefined,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeout),
      });
      text = await response.body.text();
    } catch (error) {
      throw networkError(url, error, timeout, correlationId);
    }
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      body: parseJson(url, response.statusCode, text, correlationId) as T,
    };
  }

  return {
    sendGetRequestAsync: (url, requestOptions, timeout) => send('GET', url, requestOptions, timeout),
    sendPostRequestAsync: (url, requestOptions) => send('POST', url, requestOptions),
    close: () => agent.close(),
  };
}
