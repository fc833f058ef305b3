import { Pool } from 'undici';
import type { Transport, TransportOptions } from './transport.js';

/** A keep-alive undici pool to the origin. */
export function openUndiciTransport(options: TransportOptions): Transport {
  const pool = new Pool(options.origin, {
    connections: options.connections,
    keepAliveTimeout: 30_000,
    ...(options.ca ? { connect: { ca: options.ca } } : {}),
  });
  return {
    async request({ method, path, headers, body, signal, timeoutMs }) {
      const response = await pool.request({
        method: method as 'GET',
        path,
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      return { status: response.statusCode, statusText: response.statusText, headers: response.headers, text };
    },
    close: () => pool.close(),
  };
}
