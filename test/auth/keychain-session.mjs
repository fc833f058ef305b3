// Runs inside `dbus-run-session` with an unlocked gnome-keyring (see keychain-real.test.ts): signs in with the built
// `memory` CLI, looks the secret up with `secret-tool` (libsecret, independent of our code), and signs out. Prints one
// JSON line with every step's exit code and output for the test to check.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const { MEMORY_BIN, CORE_BASE_URL, TENANT_ID, CLIENT_ID, CA_FILE, CLIENT_SECRET, XDG_CONFIG_HOME } = process.env;

function run(command, args, input) {
  const result = spawnSync(command, args, { input: input ?? '', encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
}

const memory = (args, input) => run(process.execPath, [MEMORY_BIN, ...args], input);
const lookup = () => run('secret-tool', ['lookup', 'service', 'meeting-memory', 'username', 'kc/client-secret']);

const steps = {};
steps.login = memory(
  ['login', '--profile', 'kc', '--base-url', CORE_BASE_URL, '--tenant', TENANT_ID, '--client-id', CLIENT_ID, '--ca-file', CA_FILE, '--client-secret-stdin'],
  `${CLIENT_SECRET}\n`,
);
steps.lookup = lookup();
steps.profiles = { code: 0, stdout: readFileSync(join(XDG_CONFIG_HOME, 'meeting-memory', 'profiles.json'), 'utf8'), stderr: '' };
steps.status = memory(['auth', 'status', '--profile', 'kc', '--json']);
steps.token = memory(['auth', 'token', '--profile', 'kc']);
steps.tokenAgain = memory(['auth', 'token', '--profile', 'kc']);
steps.list = memory(['decisions', 'list', '--profile', 'kc', '--json', '--limit', '1']);
steps.logout = memory(['logout', '--profile', 'kc']);
steps.lookupAfterLogout = lookup();
steps.statusAfterLogout = memory(['auth', 'status', '--profile', 'kc']);
process.stdout.write(`${JSON.stringify(steps)}\n`);
