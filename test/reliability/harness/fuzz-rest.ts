import fc from 'fast-check';
import { ADMIN_OPERATIONS } from '../../../src/contract/admin-operations.js';
import { OPERATIONS, pathParams, type Operation } from '../../../src/contract/index.js';
import type { FuzzWorld } from './fuzz-world.js';
import { anyString, bodyOrQueryFields, fieldValue, unknownField, wrongType } from './fuzz-values.js';
import type { RawRequest } from './http.js';

/** One generated REST request and the operation whose route it aims at (by name, so a counterexample prints short). */
export interface RestCase {
  op: string;
  request: RawRequest;
}

/**
 * Admin routes the fuzzer leaves out: they reach beyond this machine (registering a backend resolves its host,
 * asking a teammate calls it), and fuzz traffic stays on 127.0.0.1.
 */
export const ADMIN_ROUTES_NOT_FUZZED = ['setAgentBackend', 'askTeammate'] as const;

const ALL_OPERATIONS: readonly Operation[] = [...OPERATIONS, ...ADMIN_OPERATIONS];

const ODD_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'] as const;

/** Header values must be Latin-1 without control characters, or node:http refuses to send them at all. */
const headerText = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });

/**
 * The Authorization header: mostly one of the `usual` tokens, sometimes one that reaches nothing here (an outsider's,
 * or a memory token on the admin surface), a forged one, or none.
 */
function authorization(world: FuzzWorld, usual: string[], unusual: string[]): fc.Arbitrary<string | string[] | undefined> {
  const bearer = (tokens: string[]) => fc.constantFrom(...tokens).map((token) => `Bearer ${token}`);
  return fc.oneof(
    { arbitrary: bearer(usual), weight: 40 },
    { arbitrary: bearer(unusual), weight: 2 },
    { arbitrary: bearer(world.forged), weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer a.b.c', 'Token abc'), weight: 1 },
    { arbitrary: fc.constantFrom(...world.writers).map((token) => `bearer  ${token}`), weight: 1 },
    { arbitrary: headerText.map((text) => `Bearer ${text}`), weight: 1 },
    { arbitrary: fc.tuple(bearer(world.readers), bearer(world.forged)), weight: 1 },
  );
}

/** Headers besides Authorization that a route must ignore or refuse cleanly. */
const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom('x-request-id', 'accept', 'accept-encoding', 'content-encoding', 'x-forwarded-for', 'origin', 'x-tenant-id', 'cookie'),
  fc.oneof(headerText, fc.constantFrom('gzip', 'text/html', '*/*', 'application/xml', '00000000-0000-4000-8000-000000000000')),
  { maxKeys: 2 },
);

function encode(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}

/** Percent-encoding that is not UTF-8 (or not percent-encoding at all), sent as is. */
const BROKEN_ESCAPES = ['%FF', '%ED%A0%80', '%C0%AF', '%', '%zz', '%00', '%E2%82', '%2e%2e', '..'] as const;

/** Lone surrogates cannot be percent-encoded; they go out as U+FFFD, as a client library would send them. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function component(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

/** A path segment: percent-encoded as a client library would, only what HTTP forbids escaped, or broken escapes. */
const segmentEncoding = fc.oneof(
  { arbitrary: fc.constant(component), weight: 16 },
  { arbitrary: fc.constant((text: string) => encodeURI(wellFormed(text)).replace(/[?#]/g, encodeURIComponent)), weight: 2 },
  { arbitrary: fc.constantFrom(...BROKEN_ESCAPES).map((escape) => (text: string) => `${component(text)}${escape}`), weight: 1 },
);

function withUnknown(value: fc.Arbitrary<unknown>): fc.Arbitrary<[string, unknown][]> {
  return fc.oneof(
    { arbitrary: fc.constant<[string, unknown][]>([]), weight: 6 },
    { arbitrary: fc.array(fc.tuple(unknownField, value), { minLength: 1, maxLength: 2 }), weight: 1 },
  );
}

/** The fields a case sends: required ones nearly always, optional ones now and then, each valid more often than not. */
function fields(world: FuzzWorld, op: Operation, surface: 'query' | 'json'): fc.Arbitrary<[string, unknown][]> {
  const restNames = (op.restNames ?? {}) as Record<string, string>;
  const entries = bodyOrQueryFields(op, pathParams(op)).map(({ name, required }) =>
    fc
      .oneof(
        { arbitrary: fc.constant(null), weight: required ? 1 : 3 },
        { arbitrary: fieldValue(world, op, name, surface).map((value): [string, unknown] => [restNames[name] ?? name, value]), weight: required ? 11 : 1 },
      ),
  );
  return fc.tuple(...entries).map((pairs) => pairs.filter((pair): pair is [string, unknown] => pair !== null));
}

function queryString(pairs: [string, unknown][], duplicate: string | null, plusForSpace: boolean): string {
  const all = duplicate === null ? pairs : [...pairs, ...pairs.filter(([name]) => name === duplicate)];
  if (all.length === 0) return '';
  if (plusForSpace) return `?${new URLSearchParams(all.map(([name, value]): [string, string] => [name, encode(value)])).toString()}`;
  return `?${all.map(([name, value]) => `${component(name)}=${component(encode(value))}`).join('&')}`;
}

/** Over the 1 MB body cap; built once, as every case that draws it sends the same bytes. */
const OVERSIZED = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) });

/** The same key twice in one JSON object, which JSON.stringify cannot produce. */
function duplicateKey(pairs: [string, unknown][]): string {
  if (pairs.length === 0) return '{"text":"a","text":"b"}';
  const members = pairs.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`);
  return `{${members.join(',')},${JSON.stringify(pairs[0]![0])}:"dup"}`;
}

/** A JSON body as sent: well-formed mostly, sometimes malformed, not an object, or over the 1 MB cap. */
function body(pairs: [string, unknown][]): fc.Arbitrary<string> {
  const object = JSON.stringify(Object.fromEntries(pairs));
  return fc.oneof(
    { arbitrary: fc.constant(object), weight: 100 },
    { arbitrary: fc.constant(`\uFEFF${object}`), weight: 4 },
    { arbitrary: fc.constant(object.slice(0, Math.max(1, object.length - 1))), weight: 4 },
    { arbitrary: fc.constantFrom('', '{', 'null', '[]', '"text"', '42', '{"a":1}{"b":2}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'), weight: 8 },
    { arbitrary: fc.constant(duplicateKey(pairs)), weight: 4 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), weight: 4 },
    { arbitrary: fc.constant(OVERSIZED), weight: 1 },
  );
}

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 20 },
  {
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      '',
    ),
    weight: 3,
  },
  { arbitrary: fc.constant(undefined), weight: 1 },
);

/** The value in about one case of ten, null otherwise. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: 9 }, { arbitrary, weight: 1 });
}

/** A query parameter to send twice, now and then. */
function duplicateField(op: Operation): fc.Arbitrary<string | null> {
  const names = bodyOrQueryFields(op, pathParams(op)).map((field) => field.name);
  if (names.length === 0) return fc.constant(null);
  return rarely(fc.constantFrom(...names));
}

/** A request at the route of `op`, with everything a client could get wrong drawn from the generators. */
function caseFor(world: FuzzWorld, op: Operation, auth: fc.Arbitrary<string | string[] | undefined>): fc.Arbitrary<RestCase> {
  const paramArbs = pathParams(op).map((name) => fieldValue(world, op, name, 'query').map(encode));
  const query = op.method === 'GET';
  return fc
    .record({
      method: fc.oneof({ arbitrary: fc.constant(op.method as string), weight: 14 }, { arbitrary: fc.constantFrom(...ODD_METHODS), weight: 1 }),
      params: fc.tuple(...paramArbs),
      encodeSegment: segmentEncoding,
      pairs: fields(world, op, query ? 'query' : 'json'),
      unknown: withUnknown(query ? anyString : fc.oneof(anyString, wrongType)),
      duplicate: duplicateField(op),
      plusForSpace: fc.boolean(),
      strayQuery: rarely(fc.tuple(unknownField, anyString)),
      brokenQuery: rarely(fc.constantFrom(...BROKEN_ESCAPES).map((escape) => `${escape}=${escape}`)),
      authorization: auth,
      contentType,
      headers: extraHeaders,
    })
    .chain((parts) => {
      const names = pathParams(op);
      const path = `/v1${op.path.replace(/\{(\w+)\}/g, (_match, name: string) => parts.encodeSegment(parts.params[names.indexOf(name)] ?? ''))}`;
      const pairs = [...parts.pairs, ...parts.unknown];
      const headers: Record<string, string | string[]> = { ...parts.headers };
      if (parts.authorization !== undefined) headers.authorization = parts.authorization;
      const sendsBody = parts.method !== 'GET' && parts.method !== 'HEAD';
      if (!sendsBody || query) {
        const dup = parts.duplicate === null ? null : ((op.restNames as Record<string, string> | undefined)?.[parts.duplicate] ?? parts.duplicate);
        const junk = parts.brokenQuery === null ? '' : `${pairs.length ? '&' : '?'}${parts.brokenQuery}`;
        const target = path + queryString(pairs, dup, parts.plusForSpace) + junk;
        return fc.constant({ op: op.name, request: { method: parts.method, path: target, headers } });
      }
      if (parts.contentType !== undefined) headers['content-type'] = parts.contentType;
      const stray = parts.strayQuery === null ? '' : queryString([parts.strayQuery], null, false);
      return body(pairs).map((text) => ({ op: op.name, request: { method: parts.method, path: path + stray, headers, body: text } }));
    });
}

/** Requests at every route of the memory API's table, in equal measure; writers' tokens weigh most, to reach actions. */
export function restCases(world: FuzzWorld): fc.Arbitrary<RestCase> {
  const auth = authorization(world, [...world.writers, ...world.writers, ...world.readers], world.outsiders);
  return fc.oneof(...OPERATIONS.map((op) => caseFor(world, op, auth)));
}

/** Requests at every admin route but those that reach beyond this machine, mostly with an admin's token. */
export function adminCases(world: FuzzWorld): fc.Arbitrary<RestCase> {
  const auth = authorization(world, world.admins, [...world.writers, ...world.outsiders]);
  const fuzzed = ADMIN_OPERATIONS.filter((op) => !(ADMIN_ROUTES_NOT_FUZZED as readonly string[]).includes(op.name));
  return fc.oneof(...fuzzed.map((op) => caseFor(world, op, auth)));
}

/** The operation the core serves for a method at the route of the named one (GET at a PATCH route reads the record). */
export function servedOperation(name: string, method: string): Operation | undefined {
  const op = ALL_OPERATIONS.find((candidate) => candidate.name === name);
  const wanted = method === 'HEAD' ? 'GET' : method;
  return ALL_OPERATIONS.find((candidate) => candidate.path === op?.path && candidate.method === wanted);
}

/** Whether an operation belongs to the admin surface (its accepted calls may change any table). */
export function isAdminOperation(name: string): boolean {
  return ADMIN_OPERATIONS.some((op) => op.name === name);
}
