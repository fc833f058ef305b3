import { randomUUID } from 'node:crypto';
import { initDataDir, type InitResult } from '../../../src/core/admin/init.js';
import { generateSecret, hashSecret } from '../../../src/core/auth/secret-hash.js';
import { DEFAULT_AUDIENCE, type CoreOptions } from '../../../src/core/server/serve.js';
import { requestToken, startDemoCore, type TestCore } from '../../helpers/core.js';

export const SCOPE = `${DEFAULT_AUDIENCE}/.default`;

export interface AdminCore {
  t: TestCore;
  /** An admin of the demo tenant (not the operator tenant). */
  adminToken: string;
  /** The admin `memory serve init` created in the same data dir: its tenant is the operator tenant. */
  operator: InitResult;
  operatorToken: string;
}

/**
 * A real core with the demo, an admin principal added to the demo tenant, and an operator tenant set up by
 * `serve init` in the same data dir while the core runs.
 */
export async function startAdminCore(options: Partial<CoreOptions> = {}): Promise<AdminCore> {
  const t = await startDemoCore(options);
  const secret = generateSecret();
  const admin = await t.core.store.createPrincipal({
    tenantId: t.creds.tenant_id,
    oid: randomUUID(),
    clientId: randomUUID(),
    displayName: 'test-admin',
    secretHash: await hashSecret(secret),
    isAdmin: true,
  });
  const adminToken = await requestToken(t.creds.token_url, admin.clientId, secret, SCOPE);
  const operator = await initDataDir({
    dataDir: t.dataDir,
    tenantName: 'Operator Co',
    region: 'ca',
    publicUrl: t.core.origin,
    audience: DEFAULT_AUDIENCE,
  });
  const operatorToken = await requestToken(operator.token_url, operator.client_id, operator.client_secret, SCOPE);
  return { t, adminToken, operator, operatorToken };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One HTTP call on the core with a bearer token; a string body is sent as it is, anything else as JSON. */
export async function call(
  t: TestCore,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; contentType?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(`${t.core.baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}
