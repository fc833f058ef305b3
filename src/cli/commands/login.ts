import { Option, type Command } from 'commander';

/** The flags of `memory login`. */
export interface LoginFlags {
  profile?: string;
  tenant?: string;
  clientId?: string;
  clientSecretStdin?: boolean;
  certificate?: string;
  privateKey?: string;
  thumbprint?: string;
  authority?: string;
  scope?: string;
  baseUrl?: string;
  caFile?: string;
  deployment?: string;
  insecureStorage?: boolean;
  demo?: boolean;
  dataDir?: string;
}

/** The flags of `memory logout`. */
export interface LogoutFlags {
  profile?: string;
  forget?: boolean;
}

const LOGIN_HELP = `
Examples:
  # Entra ID: the secret comes from stdin (never from an argument)
  printf %s "$SECRET" | memory login --base-url https://memory.example.com/v1 \\
      --tenant <tenant-id> --client-id <app-id> --client-secret-stdin
  # A self-hosted core's built-in issuer, trusted through its CA
  memory login --profile lab --base-url https://127.0.0.1:8787/v1 --ca-file ~/.local/share/meeting-memory/tls/ca.pem \\
      --tenant <tenant-id> --client-id <client-id> --client-secret-stdin < secret.txt
  # Profiles for the principals of a running \`memory serve --demo\`
  memory login --demo

The secret and the token cache go to the OS keychain. Without one (headless Linux, CI, containers) set
MEMORY_CLIENT_SECRET or MEMORY_TOKEN in the environment, or pass --insecure-storage for a 0600 file.`;

/**
 * `memory login` and `memory logout`. Only the flags are registered here; MSAL, the keychain and the client load
 * when the command runs.
 */
export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('Sign in with a service principal (client credentials) and save a named profile')
    .addOption(new Option('--profile <name>', 'profile to create or update (env MEMORY_PROFILE, default "default")'))
    .addOption(new Option('--base-url <url>', 'REST root of the core, e.g. https://host:8443/v1'))
    .addOption(new Option('--tenant <id>', 'tenant id (the authority is built from it)'))
    .addOption(new Option('--client-id <id>', 'application (client) id of the service principal'))
    .addOption(new Option('--client-secret-stdin', 'read the client secret from stdin (else MEMORY_CLIENT_SECRET, else a prompt on a terminal)'))
    .addOption(new Option('--certificate <pem>', 'sign in with this certificate (PEM) instead of a secret'))
    .addOption(new Option('--private-key <pem>', 'PEM private key of the certificate'))
    .addOption(new Option('--thumbprint <hex>', 'certificate thumbprint, when --certificate is not given'))
    .addOption(
      new Option(
        '--authority <url>',
        "token authority (default: the core's built-in issuer <origin>/<tenant> when the core has one, else https://login.microsoftonline.com/<tenant>)",
      ),
    )
    .addOption(new Option('--scope <scope>', 'scope to request (default api://meeting-memory/.default)'))
    .addOption(new Option('--ca-file <path>', "PEM file of a self-hosted core's CA, trusted for the core and its issuer"))
    .addOption(new Option('--deployment <id>', 'deployment the profile uses when a command names none'))
    .addOption(new Option('--insecure-storage', 'keep the secret and tokens in an unencrypted 0600 file instead of the OS keychain'))
    .addOption(new Option('--demo', 'create demo-* profiles from a demo core\'s demo-credentials.json'))
    .addOption(new Option('--data-dir <dir>', 'data dir of the demo core (with --demo; env MEMORY_DATA_DIR, default the OS data dir)'))
    .addHelpText('after', LOGIN_HELP)
    .action(async (flags: LoginFlags) => {
      const { runLogin } = await import('./login-action.js');
      await runLogin(flags);
    });

  program
    .command('logout')
    .description("Remove a profile's client secret and token cache from the keychain (or the insecure file)")
    .addOption(new Option('--profile <name>', 'profile to sign out of (env MEMORY_PROFILE, default "default")'))
    .addOption(new Option('--forget', 'also remove the profile itself'))
    .action(async (flags: LogoutFlags) => {
      const { runLogout } = await import('./login-action.js');
      await runLogout(flags);
    });
}
