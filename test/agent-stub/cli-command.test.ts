import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/contract/index.js';
import { SECRET, backendRequest, captureOutput, runMemory, waitForMatch } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-stub-cli-'));
  process.env.AGENT_STUB_CLI_SECRET = SECRET;
  delete process.env.MEMORY_AGENT_SECRET;
});
afterAll(async () => {
  delete process.env.AGENT_STUB_CLI_SECRET;
  await rm(dir, { recursive: true, force: true });
});

describe('memory agent-stub', () => {
  it('serves https with a generated certificate, logs each call as a JSON line on stdout, and stops on a signal', async () => {
    const tlsDir = join(dir, 'tls');
    const { runCli } = await import('../../src/cli/run.js');
    const output = captureOutput();
    let exit: Promise<number> | undefined;
    try {
      exit = runCli(['node', 'memory', 'agent-stub', '--port', '0', '--secret', 'env:AGENT_STUB_CLI_SECRET', '--tls-dir', tlsDir]);
      const [, url] = await waitForMatch(output.stderr, /listening on (https:\/\/127\.0\.0\.1:\d+\/)/);
      expect(output.stderr()).toContain(join(tlsDir, 'ca.pem'));
      const dispatcher = new Agent({ connect: { ca: await readFile(join(tlsDir, 'ca.pem'), 'utf8') } });
      const payload = backendRequest({ metadata: { invocation_id: randomUUID() } });
      const body = JSON.stringify(payload);
      const response = await request(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signBody(SECRET, body) },
        body,
        dispatcher,
      });
      expect(response.statusCode).toBe(200);
      expect(await response.body.json()).toMatchObject({ content: 'You said: What did we decide about pricing?' });
      await dispatcher.close();
      const [line] = await waitForMatch(output.stdout, /^\{.*\}$/m);
      expect(JSON.parse(line)).toMatchObject({ invocation_id: payload.metadata.invocation_id, round: 1, verdict: 'answered', status: 200 });
    } finally {
      process.emit('SIGTERM');
      const code = await exit;
      output.restore();
      expect(code).toBe(0);
    }
  });

  it('refuses --no-tls off loopback with exit code 2', async () => {
    const result = await runMemory(['agent-stub', '--no-tls', '--host', '0.0.0.0', '--secret', 'env:AGENT_STUB_CLI_SECRET']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--no-tls is allowed only on a loopback host/);
  });

  it('refuses a mode without the flags it needs, and a missing secret, with exit code 2', async () => {
    const canned = await runMemory(['agent-stub', '--mode', 'canned', '--secret', 'env:AGENT_STUB_CLI_SECRET']);
    expect(canned.code).toBe(2);
    expect(canned.stderr).toMatch(/--canned/);
    const forward = await runMemory(['agent-stub', '--mode', 'forward', '--forward-url', 'http://127.0.0.1:1', '--secret', 'env:AGENT_STUB_CLI_SECRET']);
    expect(forward.code).toBe(2);
    expect(forward.stderr).toMatch(/--forward-model/);
    const noSecret = await runMemory(['agent-stub', '--no-tls']);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/MEMORY_AGENT_SECRET/);
  });

  it('explains an unresolvable secret reference or a bad canned file with exit code 1', async () => {
    const secret = await runMemory(['agent-stub', '--no-tls', '--secret', 'env:NOT_SET_ANYWHERE_42']);
    expect(secret.code).toBe(1);
    expect(secret.stderr).toMatch(/NOT_SET_ANYWHERE_42 is not set/);
    const file = join(dir, 'canned.json');
    await writeFile(file, '{"replies":[{"pattern":"(","reply":"x"}]}');
    const canned = await runMemory(['agent-stub', '--no-tls', '--mode', 'canned', '--canned', file, '--secret', 'env:AGENT_STUB_CLI_SECRET']);
    expect(canned.code).toBe(1);
    expect(canned.stderr).toMatch(/not a valid regular expression/);
  });
});
