import type { Readable } from 'node:stream';

/** One HTTP exchange as the client needs it: the whole response body as text. */
export interface TransportRequest {
  method: string;
  /** Path and query on the core's origin. */
  path: string;
  headers: Record<string, string>;
  body?: string | Readable;
  signal?: AbortSignal;
  /** Longest wait for the response headers, and between body chunks. */
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Keep-alive connections to one origin. */
export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/**
 * Which HTTP stack carries the calls. `undici` (the default) is a keep-alive pool with the lowest cost per call,
 * for a process that calls many times (an MCP server, a TUI, a service). `node` is node:http(s): it adds nothing to
 * start-up and exits at once, for a process that makes a few calls and ends (a CLI command); undici's first call
 * costs a few hundred milliseconds of loading and compiling its WebAssembly parser.
 */
export type TransportKind = 'undici' | 'node';

export interface TransportOptions {
  origin: string;
  ca?: string | string[];
  connections: number;
}

/** Opens the transport of the given kind; its module loads here, so an unused stack never costs start-up time. */
export async function openTransport(kind: TransportKind, options: TransportOptions): Promise<Transport> {
  if (kind === 'node') return (await import('./node-transport.js')).openNodeTransport(options);
  return (await import('./undici-transport.js')).openUndiciTransport(options);
}
