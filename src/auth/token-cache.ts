/** The access token a client-credentials profile holds in its MSAL cache, and when it expires. */
export interface CachedToken {
  accessToken: string;
  expiresOn: Date;
}

/** Which token of a serialized MSAL cache belongs to a profile. */
export interface CacheMatch {
  clientId: string;
  /** The tenant: MSAL files app tokens under the authority's tenant as `realm`. */
  tenantId: string;
  scope: string;
}

/** MSAL renews a cached token this long before it expires (its `DEFAULT_TOKEN_RENEWAL_OFFSET_SEC`). */
export const RENEWAL_MARGIN_SECONDS = 300;

interface AccessTokenEntity {
  credential_type?: string;
  client_id?: string;
  realm?: string;
  target?: string;
  secret?: string;
  expires_on?: string;
  refresh_on?: string;
}

/** The tenant segment of an authority URL: `https://login.microsoftonline.com/<tenant>` -> `<tenant>`. */
export function tenantOfAuthority(authority: string): string {
  const segment = new URL(authority).pathname.split('/').find((part) => part !== '');
  return (segment ?? '').toLowerCase();
}

function scopesOf(target: string): Set<string> {
  return new Set(target.toLowerCase().split(/\s+/).filter(Boolean));
}

/**
 * The profile's access token in a serialized MSAL token cache (the JSON `TokenCache.serialize()` writes), whatever
 * its expiry, or undefined. Matches as MSAL does for client credentials: client id, tenant and scope; the host is not
 * compared because MSAL files Entra tokens under an alias host, and each profile has a cache of its own.
 */
export function readCachedToken(serialized: string | undefined, match: CacheMatch): (CachedToken & { refreshOn?: Date }) | undefined {
  if (!serialized) return undefined;
  let cache: { AccessToken?: Record<string, AccessTokenEntity> };
  try {
    cache = JSON.parse(serialized) as typeof cache;
  } catch {
    return undefined;
  }
  const wanted = scopesOf(match.scope);
  const found = Object.values(cache.AccessToken ?? {}).find(
    (entity) =>
      entity.credential_type === 'AccessToken' &&
      entity.client_id?.toLowerCase() === match.clientId.toLowerCase() &&
      entity.realm?.toLowerCase() === match.tenantId.toLowerCase() &&
      [...wanted].every((scope) => scopesOf(entity.target ?? '').has(scope)),
  );
  const expires = Number(found?.expires_on);
  if (!found?.secret || !Number.isFinite(expires)) return undefined;
  const refresh = Number(found.refresh_on);
  return {
    accessToken: found.secret,
    expiresOn: new Date(expires * 1000),
    ...(Number.isFinite(refresh) && found.refresh_on ? { refreshOn: new Date(refresh * 1000) } : {}),
  };
}

/**
 * The profile's access token when MSAL itself would hand it out from its cache without asking the issuer: more than
 * {@link RENEWAL_MARGIN_SECONDS} from expiry and not past its `refresh_on`. This lets a command with a cached token
 * skip loading MSAL altogether.
 */
export function usableCachedToken(serialized: string | undefined, match: CacheMatch, now = Date.now()): CachedToken | undefined {
  const cached = readCachedToken(serialized, match);
  if (cached === undefined) return undefined;
  if (cached.expiresOn.getTime() - now <= RENEWAL_MARGIN_SECONDS * 1000) return undefined;
  if (cached.refreshOn !== undefined && cached.refreshOn.getTime() <= now) return undefined;
  return { accessToken: cached.accessToken, expiresOn: cached.expiresOn };
}
