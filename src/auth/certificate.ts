import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SignInError } from './sign-in-error.js';

/** Where a certificate credential's parts are: the key file always, the certificate or its thumbprint. */
export interface CertificateFiles {
  /** PEM certificate registered with the app; its SHA-256 thumbprint and chain go into the client assertion. */
  certificateFile?: string;
  /** PEM private key of the certificate, unencrypted. */
  privateKeyFile: string;
  /** Hex thumbprint when no certificate file is given: 64 digits (SHA-256) or 40 (SHA-1, older ADFS). */
  thumbprint?: string;
}

/** The certificate credential as MSAL's `clientCertificate` takes it. */
export interface CertificateCredential {
  privateKey: string;
  thumbprintSha256?: string;
  /** SHA-1, for issuers that know no other. */
  thumbprint?: string;
  /** The PEM certificate, sent as `x5c` so Entra can match subject name and issuer. */
  x5c?: string;
}

async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new SignInError('usage', `Cannot read the ${what} ${file} (${code}).`, `check the path given to --${what === 'certificate' ? 'certificate' : 'private-key'}`);
  }
}

/** A hex thumbprint without separators, in the case MSAL sends it; undefined when it is not 40 or 64 hex digits. */
export function normalizeThumbprint(thumbprint: string): string | undefined {
  const hex = thumbprint.replace(/[\s:]/g, '').toUpperCase();
  return /^([0-9A-F]{40}|[0-9A-F]{64})$/.test(hex) ? hex : undefined;
}

/** The SHA-256 thumbprint of a PEM certificate, as hex. */
export function certificateThumbprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256.replaceAll(':', '');
}

/**
 * Reads a certificate credential: the private key (converted to PKCS#8, which MSAL signs with) and the thumbprint,
 * computed from the certificate when one is given. Unreadable or encrypted keys are usage errors naming the file.
 */
export async function readCertificateCredential(files: CertificateFiles): Promise<CertificateCredential> {
  const keyPem = await readPem(files.privateKeyFile, 'private key');
  let privateKey: string;
  try {
    privateKey = createPrivateKey(keyPem).export({ type: 'pkcs8', format: 'pem' }).toString();
  } catch (error) {
    const encrypted = /ENCRYPTED/.test(keyPem);
    throw new SignInError(
      'usage',
      `The private key ${files.privateKeyFile} cannot be used${encrypted ? ': it is encrypted' : ` (${(error as Error).message})`}.`,
      encrypted ? `decrypt it first: openssl pkey -in ${files.privateKeyFile} -out key.pem` : 'pass a PEM private key to --private-key',
    );
  }
  if (files.certificateFile !== undefined) {
    const certificate = await readPem(files.certificateFile, 'certificate');
    try {
      return { privateKey, thumbprintSha256: certificateThumbprint(certificate), x5c: certificate };
    } catch (error) {
      throw new SignInError('usage', `The certificate ${files.certificateFile} is not a PEM certificate (${(error as Error).message}).`, 'pass the PEM certificate registered with the app to --certificate');
    }
  }
  const thumbprint = files.thumbprint === undefined ? undefined : normalizeThumbprint(files.thumbprint);
  if (thumbprint === undefined) {
    throw new SignInError('usage', 'A certificate sign-in needs the certificate or its thumbprint.', 'pass --certificate <pem> or --thumbprint <hex>');
  }
  return thumbprint.length === 64 ? { privateKey, thumbprintSha256: thumbprint } : { privateKey, thumbprint };
}
