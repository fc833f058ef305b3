import { Option, type Command } from 'commander';
import type { InitResult } from '../../core/admin/init.js';
import { CliError, usageError } from '../errors.js';

interface InitFlags {
  dataDir?: string;
  tenantName: string;
  region: 'us' | 'ca';
  tenantId?: string;
  adminName: string;
  forceNewAdmin?: boolean;
  newTenant?: boolean;
  publicUrl: string;
  audience: string;
  json?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function printed(result: InitResult): string {
  const rows: [string, string][] = [
    ['data dir', result.data_dir],
    ['tenant', `${result.tenant_name} (${result.region}) ${result.tenant_id}${result.operator ? ', operator tenant' : ''}`],
    ['client id', result.client_id],
    ['client secret', result.client_secret],
    ['token url', result.token_url],
    ['authority', result.authority],
    ['scope', result.scope],
    ['base url', result.base_url],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  return `${rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n')}\n`;
}

const NEXT_STEPS = `
The client secret is shown this once and stored only as a hash: keep it in a secret store now.
Next: start the core with \`memory serve --data-dir <dir>\`, request a token for this client with the
client-credentials grant at the token url, and run \`memory admin ...\` with it in MEMORY_TOKEN.
`;

async function init(flags: InitFlags): Promise<void> {
  if (flags.tenantId !== undefined && !UUID.test(flags.tenantId)) throw usageError(`--tenant-id must be a UUID, not ${flags.tenantId}`);
  if (!URL.canParse(flags.publicUrl)) throw usageError(`--public-url must be a URL such as https://memory.example.com, not ${flags.publicUrl}`);
  const [{ initDataDir, AlreadyInitialisedError, UnknownTenantError }, { defaultDataDir }] = await Promise.all([
    import('../../core/admin/init.js'),
    import('../../core/server/data-dir.js'),
  ]);
  const dataDir = flags.dataDir ?? defaultDataDir();
  try {
    const result = await initDataDir({
      dataDir,
      tenantName: flags.tenantName,
      region: flags.region,
      tenantId: flags.tenantId?.toLowerCase(),
      adminName: flags.adminName,
      forceNewAdmin: flags.forceNewAdmin,
      newTenant: flags.newTenant,
      publicUrl: flags.publicUrl,
      audience: flags.audience,
    });
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`${printed(result)}${NEXT_STEPS}`);
  } catch (error) {
    if (error instanceof AlreadyInitialisedError) {
      throw new CliError(`${dataDir} is already initialised; its admin credential was shown when it was.`, {
        hint: 'add another admin with --force-new-admin, or a further tenant with --new-tenant',
      });
    }
    if (error instanceof UnknownTenantError) {
      throw usageError(`The data dir holds no tenant ${error.tenantId}.`, 'leave out --tenant-id to add the admin to the operator tenant');
    }
    throw error;
  }
}

/**
 * `memory serve init`: sets up a data dir for self-hosting without the demo, in its database directly (no server
 * running): the first tenant and an admin service principal, whose secret is printed once. Tenants are created
 * only this way, by whoever holds the data dir; the first is the operator tenant.
 */
export function registerServeInit(serve: Command): void {
  serve
    .command('init')
    .description('Create the first tenant and an admin credential in the data dir (no --demo); prints the secret once')
    .option('--data-dir <dir>', 'the data dir to initialise (default: the OS data dir)', process.env.MEMORY_DATA_DIR)
    .option('--tenant-name <name>', 'name of the tenant', 'My organisation')
    .addOption(new Option('--region <region>', 'where the tenant is hosted').choices(['us', 'ca']).default('us'))
    .option('--tenant-id <uuid>', 'create the tenant under this id (with --issuer entra: your Entra tenant id)')
    .option('--admin-name <name>', 'display name of the admin principal', 'admin')
    .option('--force-new-admin', 'on an initialised data dir: add another admin (to --tenant-id, default the operator tenant)')
    .option('--new-tenant', 'on an initialised data dir: create a further tenant with its own admin')
    .option('--public-url <url>', 'the origin clients reach the core at, for the token url printed', 'https://127.0.0.1:8787')
    .option('--audience <aud>', 'token audience, as `memory serve --audience`', 'api://meeting-memory')
    .option('--json', 'print the credential as one JSON line')
    .action(init);
}
