import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Transport, TransportOptions, TransportRequest, TransportResponse } from './transport.js';

/** node:http(s) with a keep-alive agent to the origin; idle sockets never hold the process open. */
export function openNodeTransport(options: TransportOptions): Transport {
  const origin = new URL(options.origin);
  const secure = origin.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: options.connections };
  const agent = secure ? new HttpsAgent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) }) : new HttpAgent(agentOptions);
  const send = secure ? httpsRequest : httpRequest;

  // node:http sends a DELETE's body neither chunked nor with a length unless told, so every string body carries
  // its Content-Length.
  function request(call: TransportRequest): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      const outgoing = send(
        {
          protocol: origin.protocol,
          hostname: origin.hostname,
          port: origin.port,
          method: call.method,
          path: call.path,
          headers: typeof call.body === 'string' ? { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) } : call.headers,
          agent,
          signal: call.signal,
          timeout: call.timeoutMs,
        },
        (response) => readResponse(response, call.timeoutMs).then(resolve, reject),
      );
      outgoing.on('timeout', () => outgoing.destroy(timeoutError(call.timeoutMs)));
      outgoing.on('error', reject);
      if (call.body instanceof Readable) pipeline(call.body, outgoing).catch(reject);
      else outgoing.end(call.body);
    });
  }

  return {
    request,
    close: async () => agent.destroy(),
  };
}

function readResponse(response: IncomingMessage, timeoutMs: number): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.setTimeout(timeoutMs, () => response.destroy(timeoutError(timeoutMs)));
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () =>
      resolve({
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        headers: response.headers,
        text: Buffer.concat(chunks).toString('utf8'),
      }),
    );
  });
}

function timeoutError(timeoutMs: number): Error {
  return Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
}
