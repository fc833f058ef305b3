import { Option, type Command } from 'commander';

/** The flags of `memory auth status` and `memory auth token`. */
export interface AuthFlags {
  profile?: string;
  json?: boolean;
}

/** `memory auth status` and `memory auth token`; the keychain and MSAL load only when one runs. */
export function registerAuth(program: Command): void {
  const auth = program.command('auth').description('Show the signed-in profile, or print an access token for scripts');
  auth
    .command('status')
    .description('Show a profile: core, authority, client id, token expiry and where its secrets are')
    .addOption(new Option('--profile <name>', 'profile to show (env MEMORY_PROFILE, default "default")'))
    .addOption(new Option('--json', 'print JSON'))
    .action(async (flags: AuthFlags) => {
      const { runAuthStatus } = await import('./auth-action.js');
      await runAuthStatus(flags);
    });
  auth
    .command('token')
    .description('Print a valid access token, from the cache or freshly signed in: TOKEN=$(memory auth token)')
    .addOption(new Option('--profile <name>', 'profile to use (env MEMORY_PROFILE, default "default")'))
    .action(async (flags: AuthFlags) => {
      const { runAuthToken } = await import('./auth-action.js');
      await runAuthToken(flags);
    });
}
