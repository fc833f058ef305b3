import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentStub } from '../../src/agent-stub/server.js';
import { SECRET, TLS, runMemory, startTestStub } from '../agent-stub/helpers.js';

const RULES = [
  'signed-request-accepted',
  'replay-refused',
  'tool-round-answered',
  'tampered-body-refused',
  'wrong-secret-refused',
  'unsigned-request-refused',
  'answers-within-budget',
  'response-shape',
  'response-size',
];

let dir: string;
let caFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-check-'));
  caFile = join(dir, 'ca.pem');
  await writeFile(caFile, TLS.ca);
  process.env.AGENT_CHECK_SECRET = SECRET;
  delete process.env.MEMORY_AGENT_SECRET;
});
afterAll(async () => {
  delete process.env.AGENT_CHECK_SECRET;
  await rm(dir, { recursive: true, force: true });
});

type Handler = (body: { metadata: { timeout_ms: number; round: number } }, res: ServerResponse) => void;

/** An https backend on the test CA that answers everything through `handler`, signature or not. */
async function startBackend(handler: Handler): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpsServer({ key: TLS.key, cert: TLS.cert }, async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    handler(JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/agent`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function reply(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function check(url: string, ...extra: string[]) {
  return runMemory(['agent-check', url, '--secret', 'env:AGENT_CHECK_SECRET', '--ca', caFile, ...extra]);
}

describe('memory agent-check', () => {
  it('passes every rule against the agent stub and exits 0', async () => {
    const stub = await startTestStub();
    try {
      const result = await check(stub.url);
      expect(result.stdout.trim().split('\n')).toEqual(RULES.map((rule) => expect.stringMatching(new RegExp(`^PASS ${rule}: `))));
      expect(result.code).toBe(0);
      expect(stub.calls.map((call) => call.verdict)).toEqual(
        expect.arrayContaining(['answered', 'replayed-request', 'bad-signature']),
      );
    } finally {
      await stub.close();
    }
  });

  it('passes in tool-demo mode too, whose first answer asks for a tool', async () => {
    const stub = await startTestStub({ mode: { kind: 'tool-demo' } });
    try {
      const result = await check(stub.url);
      expect(result.code).toBe(0);
    } finally {
      await stub.close();
    }
  });

  it('fails, naming each broken rule, against a backend that does not verify signatures', async () => {
    const backend = await startBackend((_body, res) => reply(res, { content: 'ok' }));
    try {
      const result = await check(backend.url);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^PASS signed-request-accepted: 200/m);
      for (const rule of ['replay-refused', 'tampered-body-refused', 'wrong-secret-refused', 'unsigned-request-refused']) {
        expect(result.stdout).toMatch(new RegExp(`^FAIL ${rule}: .*\\(200\\)$`, 'm'));
      }
      expect(result.stderr).toMatch(/4 of 9 contract rules failed/);
    } finally {
      await backend.close();
    }
  });

  it('fails the budget, shape and size rules against a slow, sloppy, oversized backend', async () => {
    const backend = await startBackend((body, res) => {
      if (body.metadata.timeout_ms === 1000) setTimeout(() => reply(res, { content: 'late' }), 1500);
      else if (body.metadata.round === 2) reply(res, { content: 'x'.repeat(2 * 1024 * 1024) });
      else reply(res, { content: 'ok', finish_reason: 'done' });
    });
    try {
      const result = await check(backend.url);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^FAIL answers-within-budget: with timeout_ms 1000: no answer within 1000 ms$/m);
      expect(result.stdout).toMatch(/^FAIL tool-round-answered: the answer is over 1 MB$/m);
      expect(result.stdout).toMatch(/^FAIL response-size: 1 answers are over 1 MB$/m);
      expect(result.stdout).toMatch(/^FAIL response-shape: the answer to the valid request is not a BackendResponse: finish_reason/m);
    } finally {
      await backend.close();
    }
  });

  it('fails every rule with the reason when nothing answers', async () => {
    const backend = await startBackend(() => undefined);
    const url = backend.url;
    await backend.close();
    const result = await check(url);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL signed-request-accepted: no answer: ECONNREFUSED/m);
    expect(result.stdout).toMatch(/^FAIL response-size: no answer to measure$/m);
  });

  it('fails with a hint to pass --ca when the certificate is not trusted', async () => {
    const stub = await startTestStub();
    try {
      const result = await runMemory(['agent-check', stub.url, '--secret', 'env:AGENT_CHECK_SECRET']);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^FAIL signed-request-accepted: no answer: \S+ .*trust the CA that issued it with --ca/m);
    } finally {
      await stub.close();
    }
  });

  it('checks a plain-http loopback backend only with --insecure-loopback-http', async () => {
    const stub = await startAgentStub({ secret: SECRET, port: 0, tls: false });
    try {
      const refused = await runMemory(['agent-check', stub.url, '--secret', 'env:AGENT_CHECK_SECRET']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/must be https/);
      const allowed = await runMemory(['agent-check', stub.url, '--secret', 'env:AGENT_CHECK_SECRET', '--insecure-loopback-http']);
      expect(allowed.code).toBe(0);
    } finally {
      await stub.close();
    }
  });

  it('refuses bad arguments with exit code 2 and an unreadable CA with exit code 1', async () => {
    const url = 'https://127.0.0.1:9/';
    expect((await check(url, '--timeout-ms', '500')).code).toBe(2);
    expect((await runMemory(['agent-check', url])).code).toBe(2);
    const missingCa = await runMemory(['agent-check', url, '--secret', 'env:AGENT_CHECK_SECRET', '--ca', join(dir, 'missing.pem')]);
    expect(missingCa.code).toBe(1);
    expect(missingCa.stderr).toMatch(/cannot read the CA certificate/);
  });
});
