import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
  type KeyObject,
} from 'jose';
import type { Store } from '../store/store.js';

const SETTING = 'issuer.signing-key';
export const SIGNING_ALGORITHM = 'ES256';

/** The issuer's signing key: the private key for signing, the public JWK (with its `kid`) for the JWKS. */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey | KeyObject | Uint8Array;
  publicJwk: JWK;
}

async function newPrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' };
}

/**
 * The issuer's signing key, created on first use and kept in the store. The first replica to store one wins and
 * every other replica signs with that same key, so tokens from any replica verify everywhere.
 */
export async function loadSigningKey(store: Store): Promise<SigningKey> {
  const text = (await store.getSetting(SETTING)) ?? (await store.initSetting(SETTING, JSON.stringify(await newPrivateJwk())));
  const stored = JSON.parse(text) as JWK;
  if (typeof stored.kid !== 'string' || stored.alg !== SIGNING_ALGORITHM) {
    throw new Error(`The stored setting ${SETTING} is not an ${SIGNING_ALGORITHM} signing key.`);
  }
  const { d: _private, ...publicJwk } = stored;
  return { kid: stored.kid, privateKey: await importJWK(stored, SIGNING_ALGORITHM), publicJwk };
}
