import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CliError, usageError } from '../errors.js';
import { insecureStorageWarning, type Profile } from '../profiles.js';
import type { LoginFlags } from './login.js';
import { chooseStorage, completeSignIn, nowTimestamp } from './login-flow.js';

/** What `memory serve --demo` writes to `<data-dir>/demo-credentials.json`, as far as sign-in needs it. */
const DemoCredentials = z.object({
  base_url: z.string(),
  authority: z.string(),
  ca_file: z.string().nullable(),
  deployments: z.array(z.object({ id: z.string(), name: z.string() })),
  principals: z
    .array(
      z.object({
        client_id: z.string(),
        client_secret: z.string(),
        scope: z.string(),
        grants: z.array(z.object({ deployment_id: z.string(), access: z.string() })).min(1),
      }),
    )
    .min(1),
});
type DemoCredentials = z.infer<typeof DemoCredentials>;
type DemoPrincipal = DemoCredentials['principals'][number];

/** Flags that `--demo` takes from the credentials file instead. */
const NOT_WITH_DEMO: readonly (keyof LoginFlags)[] = [
  'profile', 'tenant', 'clientId', 'clientSecretStdin', 'certificate', 'privateKey', 'thumbprint', 'authority', 'scope', 'baseUrl', 'caFile', 'deployment',
];

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * The profile name of a demo principal, from its grant: `demo-reader` and `demo-writer` on the first deployment,
 * `demo-reader-juniper` on another (named after it).
 */
export function demoProfileName(principal: DemoPrincipal, deployments: DemoCredentials['deployments']): string {
  const grant = principal.grants[0];
  const index = deployments.findIndex((deployment) => deployment.id === grant?.deployment_id);
  const role = grant?.access === 'read_write' ? 'writer' : 'reader';
  const deployment = deployments[index];
  return `demo-${role}${index > 0 && deployment ? `-${slug(deployment.name)}` : ''}`;
}

async function readDemoCredentials(file: string): Promise<DemoCredentials> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`No demo credentials at ${file}${code === 'ENOENT' ? '' : ` (${code})`}.`, {
      hint: 'start the demo core first with `memory serve --demo`, or pass the --data-dir it uses',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = DemoCredentials.safeParse(json);
  if (!parsed.success) throw new CliError(`${file} is not a demo credentials file.`, { hint: 'restart `memory serve --demo` to rewrite it' });
  return parsed.data;
}

async function demoDataDir(flags: LoginFlags, env: NodeJS.ProcessEnv): Promise<string> {
  const given = flags.dataDir ?? (env.MEMORY_DATA_DIR?.trim() || undefined);
  if (given !== undefined) return given;
  const { defaultDataDir } = await import('../../core/server/data-dir.js');
  return defaultDataDir(env);
}

/**
 * `memory login --demo`: a ready profile for each principal of a running demo core (`demo-reader`, `demo-writer`,
 * `demo-reader-juniper`), signed in with the real client-credentials flow and stored like any other sign-in.
 */
export async function runDemoLogin(flags: LoginFlags, env: NodeJS.ProcessEnv): Promise<void> {
  const extra = NOT_WITH_DEMO.find((flag) => flags[flag] !== undefined);
  if (extra !== undefined) {
    const name = `--${extra.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    throw usageError(`--demo takes ${name} from the demo credentials file.`, 'use only --data-dir and --insecure-storage with --demo');
  }
  const file = join(await demoDataDir(flags, env), 'demo-credentials.json');
  const demo = await readDemoCredentials(file);
  const { store } = await chooseStorage(Boolean(flags.insecureStorage), true, env);
  const lines: string[] = [];
  const taken = new Set<string>();
  for (const principal of demo.principals) {
    let name = demoProfileName(principal, demo.deployments);
    for (let count = 2; taken.has(name); count += 1) name = `${demoProfileName(principal, demo.deployments)}-${count}`;
    taken.add(name);
    const grant = principal.grants[0]!;
    const profile: Profile = {
      base_url: demo.base_url,
      authority: demo.authority,
      client_id: principal.client_id,
      scope: principal.scope,
      ...(demo.ca_file ? { ca_file: demo.ca_file } : {}),
      deployment: grant.deployment_id,
      credential: 'secret',
      storage: store.kind,
      signed_in_at: nowTimestamp(),
    };
    const credential = { kind: 'secret' as const, secret: principal.client_secret };
    await completeSignIn({ name, profile, credential, store, secretToKeep: principal.client_secret }, env);
    const deployment = demo.deployments.find((candidate) => candidate.id === grant.deployment_id);
    lines.push(`  ${name.padEnd(22)} ${grant.access} on ${deployment?.name ?? grant.deployment_id}`);
  }
  process.stderr.write(`Signed in the demo principals of ${demo.base_url}; secrets in ${store.describe('<profile>')}:\n${lines.join('\n')}\n`);
  if (store.kind === 'file') process.stderr.write(insecureStorageWarning(env));
  process.stderr.write(`Try: memory decisions list --profile ${[...taken][0]}\n`);
}
