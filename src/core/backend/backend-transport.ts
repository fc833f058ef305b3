import { rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { TIMEOUT_BOUNDS_MS } from '../../contract/index.js';
import { addressRefusal, classifyAddress, type BackendNetworkPolicy } from './address-policy.js';
import { BackendAddressError, guardedLookup, type Resolver } from './guarded-lookup.js';
import { InvocationFailure } from './invocation-failure.js';

export interface BackendTransportOptions {
  policy: BackendNetworkPolicy;
  /** PEM of a CA to trust besides the system's (`--backend-ca-file`): a backend with a private CA, or a test stub. */
  extraCa?: string;
  /** The resolver behind the address check; the system's by default. */
  resolve?: Resolver;
}

/** A 2xx answer read whole (under the cap). */
export interface BackendAnswer {
  status: number;
  body: Buffer;
}

/** Where a failed POST got to: the status when one arrived, for the trace. */
export class ExchangeFailure extends InvocationFailure {
  constructor(
    failure: InvocationFailure,
    readonly status: number | null,
  ) {
    super(failure.code, failure.detail);
  }
}

export interface BackendTransport {
  /**
   * POSTs the body and reads a 2xx answer up to `capBytes`. Anything else throws an `ExchangeFailure`: no answer
   * (address refused, TLS, connection, the signal aborting), a redirect (never followed), another status, or a body
   * over the cap (the stream is abandoned as soon as it passes the cap, never buffered).
   */
  post(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal, capBytes: number): Promise<BackendAnswer>;
  close(): Promise<void>;
}

/** How much of a refusal's body is read for the trace. */
const REFUSAL_PEEK_BYTES = 4096;
const REFUSAL_DETAIL_CHARS = 200;

/**
 * The network side of invoking agent backends. Two undici agents, neither with a redirect interceptor: one for
 * https, whose connections go only to addresses the policy allows (checked after DNS resolution, see
 * guardedLookup), and one for plain http, whose connections go only to loopback addresses.
 */
export function createBackendTransport(options: BackendTransportOptions): BackendTransport {
  const ca = options.extraCa ? [...rootCertificates, options.extraCa] : undefined;
  const common = { connections: 32, keepAliveTimeout: 10_000, headersTimeout: TIMEOUT_BOUNDS_MS.max, bodyTimeout: TIMEOUT_BOUNDS_MS.max };
  const httpsAgent = new Agent({
    ...common,
    connect: { timeout: TIMEOUT_BOUNDS_MS.max, lookup: guardedLookup((address) => addressRefusal(address, options.policy), options.resolve), ...(ca ? { ca } : {}) },
  });
  const loopbackHttpAgent = new Agent({
    ...common,
    connect: { timeout: TIMEOUT_BOUNDS_MS.max, lookup: guardedLookup(loopbackOnly, options.resolve) },
  });

  return {
    async post(url, body, headers, signal, capBytes) {
      const dispatcher = url.protocol === 'https:' ? httpsAgent : loopbackHttpAgent;
      let status: number | null = null;
      try {
        const response = await request(url, { method: 'POST', headers, body, signal, dispatcher });
        status = response.statusCode;
        if (status >= 300 && status < 400) {
          abandon(response.body);
          const location = String(response.headers.location ?? '(none)').slice(0, REFUSAL_DETAIL_CHARS);
          throw new InvocationFailure('redirect-refused', `answered ${status} to ${location}; redirects are not followed`);
        }
        if (status < 200 || status >= 300) {
          const peek = await readUpTo(response.body, REFUSAL_PEEK_BYTES, false);
          throw new InvocationFailure('http-status', `answered ${status}${describeRefusal(peek)}`);
        }
        const declared = Number(response.headers['content-length'] ?? Number.NaN);
        if (declared > capBytes) {
          abandon(response.body);
          throw tooLarge(capBytes);
        }
        const read = await readUpTo(response.body, capBytes, true);
        if (read === undefined) throw tooLarge(capBytes);
        return { status, body: read };
      } catch (error) {
        throw new ExchangeFailure(classify(error, signal), status);
      }
    },
    async close() {
      await Promise.all([httpsAgent.close(), loopbackHttpAgent.close()]);
    },
  };
}

function loopbackOnly(address: string): string | null {
  return classifyAddress(address) === 'loopback' ? null : `${address}, not a loopback address (plain http goes to loopback only)`;
}

/** Stops reading a body and closes its connection; the abort this raises on the stream is expected, not an error. */
function abandon(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function tooLarge(capBytes: number): InvocationFailure {
  return new InvocationFailure('body-too-large', `the answer is over ${capBytes} bytes`);
}

/**
 * Reads a body up to `capBytes`. Past the cap it leaves the loop, which destroys the stream (and its connection),
 * and answers undefined when `strict`, or what it has when only peeking.
 */
async function readUpTo(body: AsyncIterable<Buffer>, capBytes: number, strict: boolean): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > capBytes) {
      if (strict) return undefined;
      chunks.push(chunk.subarray(0, chunk.length - (size - capBytes)));
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** `: <problem detail or the start of the body>`, printable characters only, for the trace. */
function describeRefusal(peek: Buffer | undefined): string {
  if (!peek || peek.length === 0) return '';
  const text = peek.toString('utf8');
  let said = text;
  try {
    const problem = JSON.parse(text) as { type?: unknown; detail?: unknown };
    const slug = typeof problem.type === 'string' ? problem.type.split(':').pop() : undefined;
    if (typeof problem.detail === 'string') said = slug ? `${slug}: ${problem.detail}` : problem.detail;
  } catch {
    // Not JSON: the start of the body says what it can.
  }
  const printable = said.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim().slice(0, REFUSAL_DETAIL_CHARS);
  return printable ? ` (${printable})` : '';
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Names why no (acceptable) answer arrived. */
function classify(error: unknown, signal: AbortSignal): InvocationFailure {
  if (error instanceof InvocationFailure) return error;
  if (signal.aborted) return new InvocationFailure('timeout', 'no answer within the budget');
  const chain = causes(error);
  const refused = chain.find((item): item is BackendAddressError => item instanceof BackendAddressError);
  if (refused) return new InvocationFailure('address-refused', refused.message);
  const coded = chain.find((item) => typeof (item as { code?: unknown }).code === 'string') as { code: string; message: string } | undefined;
  if (coded && TLS_CODE.test(coded.code)) return new InvocationFailure('tls', `${coded.code}: ${coded.message}`);
  const last = chain[chain.length - 1] as Error | undefined;
  return new InvocationFailure('connection', coded ? `${coded.code}: ${coded.message}` : (last?.message ?? String(error)));
}

/** The error and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let item = error; item !== undefined && item !== null && chain.length < 8; item = (item as { cause?: unknown }).cause) {
    chain.push(item);
  }
  return chain;
}
