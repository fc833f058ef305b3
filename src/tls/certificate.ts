import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';
/** Issued a little in the past so a client whose clock runs behind still accepts a fresh certificate. */
const BACKDATE_MS = 60 * 60 * 1000;

/** A certificate as PEM together with what signing further certificates with it needs. */
export interface KeyedCertificate {
  cert: string;
  key: string;
}

interface Signer {
  subject: Name;
  key: KeyObject;
  keyId: Buffer;
}

function newKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

function name(commonName: string): Name {
  const attribute = (type: string, value: string) =>
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })]);
  return new Name([attribute(ORGANIZATION, 'meeting-memory'), attribute(COMMON_NAME, commonName)]);
}

/** RFC 5280 method 1: SHA-1 over the public key bits; an identifier, not a security property. */
function keyIdentifier(spki: SubjectPublicKeyInfo): Buffer {
  return createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest();
}

function extension(extnID: string, critical: boolean, value: unknown): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/** A positive serial of 16 random bytes (the top bit cleared so DER does not read it as negative). */
function serialNumber(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 0x01;
  return new Uint8Array(bytes).buffer;
}

/** Hosts as subjectAltName entries: IP addresses as iPAddress, everything else as dNSName. */
function altNames(hosts: readonly string[]): GeneralName[] {
  return hosts.map((host) => (isIP(host) ? new GeneralName({ iPAddress: host }) : new GeneralName({ dNSName: host })));
}

function toPem(der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function signCertificate(tbs: TBSCertificate, signerKey: KeyObject): string {
  const tbsDer = AsnConvert.serialize(tbs);
  const signature = sign('sha256', Buffer.from(tbsDer), { key: signerKey, dsaEncoding: 'der' });
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    signatureValue: new Uint8Array(signature).buffer,
  });
  return toPem(AsnConvert.serialize(certificate));
}

function baseTbs(subject: Name, issuer: Name, spki: SubjectPublicKeyInfo, days: number, extensions: Extension[]): TBSCertificate {
  const now = Date.now();
  return new TBSCertificate({
    version: Version.v3,
    serialNumber: serialNumber(),
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    issuer,
    validity: new Validity({ notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * 86_400_000) }),
    subject,
    subjectPublicKeyInfo: spki,
    extensions: new Extensions(extensions),
  });
}

function spkiOf(publicKey: KeyObject): SubjectPublicKeyInfo {
  return AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
}

function pkcs8(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A new certificate authority (ECDSA P-256) that may sign server certificates but no further CAs. */
export function createCertificateAuthority(commonName: string, days: number): KeyedCertificate {
  const { privateKey, publicKey } = newKey();
  const spki = spkiOf(publicKey);
  const subject = name(commonName);
  const tbs = baseTbs(subject, subject, spki, days, [
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: true, pathLenConstraint: 0 })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign)),
    extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyIdentifier(spki))),
  ]);
  return { cert: signCertificate(tbs, privateKey), key: pkcs8(privateKey) };
}

/** A TLS server certificate (ECDSA P-256) for `hosts`, signed by the CA whose certificate and key are given. */
export function createServerCertificate(ca: KeyedCertificate, hosts: readonly string[], days: number): KeyedCertificate {
  const signer = signerOf(ca);
  const { privateKey, publicKey } = newKey();
  const spki = spkiOf(publicKey);
  const tbs = baseTbs(name(hosts[0] ?? 'localhost'), signer.subject, spki, days, [
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: false })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
    extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
    extension(id_ce_subjectAltName, false, new SubjectAlternativeName(altNames(hosts))),
    extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyIdentifier(spki))),
    extension(
      id_ce_authorityKeyIdentifier,
      false,
      new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(signer.keyId) }),
    ),
  ]);
  return { cert: signCertificate(tbs, signer.key), key: pkcs8(privateKey) };
}

function parse(pem: string): Certificate {
  const base64 = pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');
  return AsnConvert.parse(Buffer.from(base64, 'base64'), Certificate);
}

function signerOf(ca: KeyedCertificate): Signer {
  const { tbsCertificate } = parse(ca.cert);
  return {
    subject: tbsCertificate.subject,
    key: createPrivateKey(ca.key),
    keyId: keyIdentifier(tbsCertificate.subjectPublicKeyInfo),
  };
}

/** The subjectAltName entries of a certificate, as host strings. */
export function certificateHosts(pem: string): string[] {
  const extensions = parse(pem).tbsCertificate.extensions ?? [];
  const san = extensions.find((entry) => entry.extnID === id_ce_subjectAltName);
  if (!san) return [];
  return [...AsnConvert.parse(san.extnValue, SubjectAlternativeName)].flatMap((entry) => {
    const host = entry.dNSName ?? entry.iPAddress;
    return host === undefined ? [] : [host];
  });
}
