import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/contract/index.js';
import { SECRET, backendRequest, postRaw, startTestStub, type TestStub } from './helpers.js';

/** `sha256=<hex>` as openssl computes it over the exact bytes of `file`. */
function opensslSignature(secret: string, file: string): string {
  const output = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret, '-r', file], { encoding: 'utf8' });
  return `sha256=${output.trim().split(/\s+/)[0]}`;
}

describe('signatures against openssl', () => {
  let dir: string;
  let stub: TestStub;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-stub-openssl-'));
    stub = await startTestStub();
  });
  afterAll(async () => {
    await stub.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('signBody matches openssl dgst -sha256 -hmac over the raw bytes, non-ASCII included', async () => {
    const body = JSON.stringify(backendRequest({ messages: [{ role: 'user', content: 'Qu’a-t-on décidé ? 決定 🚀' }] }));
    const file = join(dir, 'body.json');
    await writeFile(file, body, 'utf8');
    expect(signBody(SECRET, body)).toBe(opensslSignature(SECRET, file));
    expect(signBody(SECRET, Buffer.from(body, 'utf8'))).toBe(opensslSignature(SECRET, file));
  });

  it('the stub accepts a body signed by openssl and refuses it once one byte changes', async () => {
    const body = JSON.stringify(backendRequest());
    const file = join(dir, 'request.json');
    await writeFile(file, body, 'utf8');
    const signature = opensslSignature(SECRET, file);
    expect((await postRaw(stub, body, signature)).status).toBe(200);
    const changed = body.replace('"round":1', '"round":2');
    expect(changed).not.toBe(body);
    expect((await postRaw(stub, changed, signature)).status).toBe(401);
  });
});
