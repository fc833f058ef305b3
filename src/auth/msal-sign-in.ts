import {
  AuthError,
  ClientConfigurationError,
  ConfidentialClientApplication,
  ServerError,
  type Configuration,
  type ICachePlugin,
  type INetworkModule,
} from '@azure/msal-node';
import { isMicrosoftAuthority } from './authority.js';
import type { CertificateCredential } from './certificate.js';
import { createMsalNetworkClient } from './network-client.js';
import { SignInError } from './sign-in-error.js';
import type { CachedToken } from './token-cache.js';

/** What one client-credentials sign-in needs. */
export interface MsalSignIn {
  /** `https://login.microsoftonline.com/<tenant>` or a self-hosted core's `<origin>/<tenant>`. */
  authority: string;
  clientId: string;
  scope: string;
  /** PEM of the CA a self-hosted issuer's certificate chains to. */
  ca?: string;
  credential: { kind: 'secret'; secret: string } | ({ kind: 'certificate' } & CertificateCredential);
}

/** Where MSAL's serialized token cache is read from and written to. */
export interface CachePersistence {
  load(): Promise<string | undefined>;
  save(serialized: string): Promise<void>;
}

function cachePlugin(persistence: CachePersistence): ICachePlugin {
  return {
    async beforeCacheAccess(context) {
      const serialized = await persistence.load();
      if (serialized) context.tokenCache.deserialize(serialized);
    },
    async afterCacheAccess(context) {
      if (context.cacheHasChanged) await persistence.save(context.tokenCache.serialize());
    },
  };
}

/**
 * The ConfidentialClientApplication configuration. Another issuer than Microsoft's is named in `knownAuthorities`
 * (host and port), so MSAL trusts it without asking login.microsoftonline.com and reads the issuer's own OpenID
 * configuration.
 */
export function msalConfiguration(signIn: MsalSignIn, persistence: CachePersistence, networkClient: INetworkModule): Configuration {
  const { credential } = signIn;
  const auth: Configuration['auth'] = {
    clientId: signIn.clientId,
    authority: signIn.authority,
    ...(isMicrosoftAuthority(signIn.authority) ? {} : { knownAuthorities: [new URL(signIn.authority).host] }),
    ...(credential.kind === 'secret'
      ? { clientSecret: credential.secret }
      : {
          clientCertificate: {
            privateKey: credential.privateKey,
            ...(credential.thumbprintSha256 ? { thumbprintSha256: credential.thumbprintSha256 } : {}),
            ...(credential.thumbprint ? { thumbprint: credential.thumbprint } : {}),
            ...(credential.x5c ? { x5c: credential.x5c } : {}),
          },
        }),
  };
  return { auth, cache: { cachePlugin: cachePlugin(persistence) }, system: { networkClient } };
}

/** The `Description:` part of an MSAL server error message, without its timestamps and ids. */
function serverDescription(error: AuthError): string {
  const match = /Description: (.*?)(?: - Correlation ID|$)/s.exec(error.errorMessage);
  return (match?.[1] ?? error.errorMessage).trim();
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;

/** MSAL's failure as one sentence and the next step. */
export function signInFailure(error: unknown, signIn: Pick<MsalSignIn, 'authority' | 'clientId'>): SignInError {
  if (error instanceof SignInError) return error;
  const where = signIn.authority;
  if (error instanceof ServerError) {
    const description = serverDescription(error);
    const hint =
      error.errorCode === 'invalid_client' || error.errorCode === 'unauthorized_client'
        ? `check the client id ${signIn.clientId} and its secret or certificate, then run \`memory login\` again`
        : error.errorCode === 'invalid_scope'
          ? 'check --scope: it is the API\'s application id URI followed by /.default'
          : 'check --tenant and --authority';
    return new SignInError('auth', `The issuer at ${where} refused the sign-in (${error.errorCode}): ${description}`, hint, { cause: error });
  }
  if (error instanceof ClientConfigurationError) {
    return new SignInError('usage', `MSAL cannot use the authority ${where}: ${error.errorMessage}`, 'check --authority and --tenant', { cause: error });
  }
  if (error instanceof AuthError && error.errorCode === 'network_error') {
    const trust = TLS_CODES.test(error.errorMessage);
    return new SignInError(
      'network',
      `Cannot reach the issuer at ${where}: ${error.errorMessage}`,
      trust ? "pass --ca-file with the core's ca.pem (it is in the core's data dir under tls/)" : 'check the address and that the issuer is running',
      { cause: error },
    );
  }
  if (error instanceof AuthError) {
    // Discovery failures (an unknown tenant answers its OpenID configuration with an error) land here.
    return new SignInError('auth', `Sign-in at ${where} failed (${error.errorCode}): ${error.errorMessage}`, 'check --tenant and --authority', { cause: error });
  }
  throw error;
}

/**
 * Why MSAL could not read the authority's OpenID configuration: MSAL reports only `endpoints_resolution_error`, so
 * the document is fetched once more to name the cause (an untrusted certificate, a refused connection, a tenant the
 * issuer does not serve).
 */
async function discoveryFailure(signIn: MsalSignIn, networkClient: INetworkModule, error: AuthError): Promise<SignInError> {
  const url = `${signIn.authority.replace(/\/+$/, '')}/v2.0/.well-known/openid-configuration`;
  let answer: { status: number; body: { error_description?: unknown } };
  try {
    answer = await networkClient.sendGetRequestAsync<{ error_description?: unknown }>(url);
  } catch (cause) {
    return signInFailure(cause, signIn);
  }
  if (answer.status !== 200) {
    const reason = typeof answer.body.error_description === 'string' ? answer.body.error_description : `HTTP ${answer.status}`;
    return new SignInError('auth', `The issuer at ${signIn.authority} has no OpenID configuration for this tenant: ${reason}`, 'check --tenant and --authority', { cause: error });
  }
  return signInFailure(error, signIn);
}

/**
 * Runs the client-credentials flow with `@azure/msal-node`: MSAL answers from the persisted cache while the token is
 * fresh and asks the issuer otherwise, writing the cache back through `persistence`. Failures are `SignInError`s.
 */
export async function acquireTokenWithMsal(signIn: MsalSignIn, persistence: CachePersistence): Promise<CachedToken> {
  const networkClient = createMsalNetworkClient({ ca: signIn.ca });
  try {
    const app = new ConfidentialClientApplication(msalConfiguration(signIn, persistence, networkClient));
    const result = await app.acquireTokenByClientCredential({ scopes: [signIn.scope] });
    if (!result?.accessToken) throw new SignInError('auth', `The issuer at ${signIn.authority} answered without an access token.`);
    return { accessToken: result.accessToken, expiresOn: result.expiresOn ?? new Date(Date.now() + 5 * 60_000) };
  } catch (error) {
    if (error instanceof AuthError && error.errorCode === 'endpoints_resolution_error') throw await discoveryFailure(signIn, networkClient, error);
    throw signInFailure(error, signIn);
  } finally {
    await networkClient.close();
  }
}
