import fc from 'fast-check';
import type { z } from 'zod';
import { LIMITS, SEARCHABLE_TYPES, type Operation } from '../../../src/contract/index.js';
import type { FuzzWorld, IdKind } from './fuzz-world.js';

/** Strings that have broken parsers, query builders and loggers before. */
const NASTY = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  '\uFEFF',
  '\u202E',
  '\uD800',
  '𝕏🙂',
  'ﷺ',
  '../../etc/passwd',
  '%00',
  '%',
  '%2F',
  '\\',
  "'; DROP TABLE decisions; --",
  '" OR 1=1 --',
  'NEAR(a b)',
  '*',
  '"',
  'a AND',
  'OR',
  '-renewal',
  '^x',
  'col:renewal',
  '{}',
  '[]',
  'null',
  'undefined',
  'true',
  '-1',
  '1e309',
  'NaN',
  '__proto__',
  '<script>alert(1)</script>',
] as const;

/** One character repeated: big strings are cheap to make and exercise every length limit. */
const big = fc
  .tuple(fc.constantFrom('a', 'é', '😀', ' ', '\u0000', '.'), fc.oneof(fc.integer({ min: 100, max: 5000 }), fc.constant(4001), fc.constant(1001), fc.constant(129)))
  .map(([unit, count]) => unit.repeat(count));

/** Any string a client could send: arbitrary text, full unicode, the nasty list, and big ones. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 9 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 6 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 6 },
  { arbitrary: fc.constantFrom(...NASTY), weight: 9 },
  { arbitrary: big, weight: 1 },
);

/** A value of the wrong JSON type for nearly any field. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

const validDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

const badDate = fc.constantFrom(
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '0000-00-00',
  '2024-1-1',
  '20240101',
  '2024-01-01T00:00:00Z',
  '２０２４-01-01',
  '2024/01/01',
  '+02024-01-01',
  '9999-99-99',
);

/** A date: mostly a real day (so date windows are exercised), sometimes not one. */
export const dateValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: validDate, weight: 8 },
  { arbitrary: badDate, weight: 2 },
  { arbitrary: anyString, weight: 1 },
);

function limitValue(op: Operation): fc.Arbitrary<unknown> {
  const max = op.name === 'searchMemory' ? LIMITS.search.max : LIMITS.list.max;
  return fc.oneof(
    { arbitrary: fc.integer({ min: 1, max }), weight: 5 },
    { arbitrary: fc.constantFrom(0, -1, max + 1, 2 ** 31, 2 ** 53 + 1, 1.5, -0), weight: 2 },
    { arbitrary: fc.constantFrom('5', ' 5', '5.0', '1e2', '0x10', '99999999999999999999', '', '-0'), weight: 2 },
    { arbitrary: wrongType, weight: 1 },
  );
}

function pickFrom(values: string[]): fc.Arbitrary<string> {
  return values.length === 0 ? fc.uuid() : fc.constantFrom(...values);
}

/** An id of a kind: the caller's own records mostly, foreign ones, made-up ones and malformed ones. */
export function idValue(world: FuzzWorld, kind: IdKind): fc.Arbitrary<string> {
  const own = kind === 'deployment' ? [world.deployments.own] : world.own[kind];
  const foreign =
    kind === 'deployment' ? [world.deployments.sibling, world.deployments.foreignTenant] : world.foreign[kind];
  return fc.oneof(
    { arbitrary: pickFrom(own), weight: 16 },
    { arbitrary: pickFrom(foreign), weight: 3 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: fc.stringMatching(/^[A-Za-z0-9._~-]{1,140}$/), weight: 1 },
    { arbitrary: anyString, weight: 1 },
  );
}

/** A cursor: one the core issued for this operation, one for another, an edited one, or a made-up one. */
export function cursorValue(world: FuzzWorld, op: Operation): fc.Arbitrary<unknown> {
  const mine = world.cursors.get(op.name) ?? [];
  const others = [...world.cursors].filter(([name]) => name !== op.name).flatMap(([, list]) => list);
  const tampered = fc.tuple(pickFrom(mine.length ? mine : others), fc.nat(), fc.constantFrom('A', 'z', '_', '-', '.')).map(
    ([cursor, at, char]) => {
      const index = at % cursor.length;
      return cursor.slice(0, index) + (cursor[index] === char ? 'Q' : char) + cursor.slice(index + 1);
    },
  );
  const forged = fc
    .record({ b: fc.string({ maxLength: 22 }), p: fc.oneof(fc.integer(), fc.record({ ts: fc.string(), id: fc.string() })) })
    .map((payload) => `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${Buffer.from('forged-mac-bytes').toString('base64url')}`);
  return fc.oneof(
    { arbitrary: pickFrom(mine), weight: 4 },
    { arbitrary: pickFrom(others), weight: 1 },
    { arbitrary: tampered, weight: 2 },
    { arbitrary: forged, weight: 1 },
    { arbitrary: fc.constantFrom('.', 'a.b.c', 'x'.repeat(2049)), weight: 1 },
    { arbitrary: anyString, weight: 1 },
  );
}

function statusValue(op: Operation): fc.Arbitrary<unknown> {
  const valid: Record<string, string[]> = {
    listActionItems: ['open', 'done'],
    updateActionItem: ['open', 'done'],
    resolveOpenQuestion: ['open', 'resolved'],
    updateDecision: ['confirmed', 'superseded'],
  };
  return fc.oneof(
    { arbitrary: fc.constantFrom(...(valid[op.name] ?? ['open'])), weight: 6 },
    { arbitrary: fc.constantFrom('open', 'done', 'resolved', 'confirmed', 'superseded', 'DONE', 'Open', 'closed'), weight: 2 },
    { arbitrary: anyString, weight: 1 },
    { arbitrary: wrongType, weight: 1 },
  );
}

const typesText = fc.oneof(
  fc.subarray([...SEARCHABLE_TYPES], { minLength: 1 }).map((types) => types.join(',')),
  fc.constantFrom('meeting', 'deployment', 'decision,,topic', ',', 'DECISION', 'decision, topic', 'statement,statement'),
  anyString,
);

function typesValue(surface: 'query' | 'json'): fc.Arbitrary<unknown> {
  if (surface === 'query') return typesText;
  return fc.oneof(
    { arbitrary: fc.subarray([...SEARCHABLE_TYPES], { minLength: 1 }), weight: 4 },
    { arbitrary: fc.array(fc.constantFrom('meeting', 'deployment', 'Decision', '', ...SEARCHABLE_TYPES), { maxLength: 4 }), weight: 2 },
    { arbitrary: typesText, weight: 1 },
    { arbitrary: wrongType, weight: 1 },
  );
}

const booleanValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.boolean(), weight: 6 },
  { arbitrary: fc.constantFrom('true', 'false', 1, 0, null, 'yes'), weight: 2 },
);

const textValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.lorem({ maxCount: 8 }), weight: 5 },
  { arbitrary: anyString, weight: 3 },
  { arbitrary: wrongType, weight: 1 },
);

/**
 * A value for one input field of an operation, valid more often than not so that deep paths run too.
 * `surface` says whether it ends up in a query string (text only) or in JSON (any type).
 */
export function fieldValue(world: FuzzWorld, op: Operation, field: string, surface: 'query' | 'json'): fc.Arbitrary<unknown> {
  const wrong = surface === 'json' ? wrongType : anyString;
  const typed = ((): fc.Arbitrary<unknown> => {
    switch (field) {
      case 'deployment_id':
        return idValue(world, 'deployment');
      case 'decision_id':
        return idValue(world, 'decision');
      case 'open_question_id':
        return idValue(world, 'open_question');
      case 'action_item_id':
        return idValue(world, 'action_item');
      case 'meeting_id':
        return idValue(world, 'meeting');
      case 'assignee_idp_id':
        return fc.oneof(fc.uuid(), idValue(world, 'meeting'), anyString);
      case 'since':
      case 'until':
      case 'due_date':
        return dateValue;
      case 'limit':
        return limitValue(op);
      case 'cursor':
        return cursorValue(world, op);
      case 'order':
        return fc.oneof({ arbitrary: fc.constantFrom('asc', 'desc'), weight: 8 }, { arbitrary: fc.constantFrom('ASC', 'random', ''), weight: 1 });
      case 'status':
        return statusValue(op);
      case 'types':
        return typesValue(surface);
      case 'clear_due_date':
      case 'clear_note':
        return booleanValue;
      case 'query':
        return fc.oneof(fc.constantFrom('renewal', 'pricing', 'the', 'customer renewal', '"renewal plan"', 'renew*'), anyString);
      case 'text':
      case 'note':
        return textValue;
      case 'client_id':
        return fc.oneof({ arbitrary: pickFrom(world.clientIds), weight: 6 }, { arbitrary: fc.uuid(), weight: 1 }, { arbitrary: anyString, weight: 1 });
      default:
        return schemaValue((op.input.shape as Record<string, z.ZodType>)[field]);
    }
  })();
  return fc.oneof({ arbitrary: typed, weight: 19 }, { arbitrary: wrong, weight: 1 });
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (['optional', 'nullable', 'default', 'pipe', 'readonly'].includes(current.def.type)) {
    const def = current.def as unknown as { innerType?: z.ZodType; in?: z.ZodType };
    current = def.innerType ?? def.in ?? current;
    if (current === schema) break;
  }
  return current;
}

/**
 * A value for a field no case above names (the admin surface's), read off its zod schema: the enum's options,
 * small and out-of-range integers, booleans, arrays of such values, objects of their fields, and text.
 */
export function schemaValue(schema: z.ZodType | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 3) return anyString;
  const inner = unwrapped(schema);
  switch (inner.def.type) {
    case 'enum':
      return fc.oneof({ arbitrary: fc.constantFrom(...(inner as unknown as { options: string[] }).options), weight: 6 }, { arbitrary: anyString, weight: 1 });
    case 'boolean':
      return fc.boolean();
    case 'number':
      return fc.oneof(fc.integer({ min: -5, max: 400_000 }), fc.constantFrom(0, 1, 30, 90, 2555, 2 ** 53, -1, 0.5));
    case 'array': {
      const element = (inner.def as unknown as { element: z.ZodType }).element;
      return fc.array(schemaValue(element, depth + 1), { maxLength: 3 });
    }
    case 'object': {
      const shape = (inner as unknown as { shape: Record<string, z.ZodType> }).shape;
      return fc.record(Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, schemaValue(field, depth + 1)])), { requiredKeys: [] });
    }
    default:
      return fc.oneof({ arbitrary: fc.lorem({ maxCount: 3 }), weight: 4 }, { arbitrary: dateValue, weight: 1 }, { arbitrary: anyString, weight: 2 });
  }
}

/** Names a route does not know: near misses of real ones, prototype keys, other surfaces' names. */
export const unknownField: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('tenant_id', 'id', 'LIMIT', 'limit ', 'q[]', 'query', 'q', 'type', 'deleted', 'updated_by', 'constructor', '__proto__', 'text\u0000'),
  fc.string({ minLength: 1, maxLength: 12 }),
);

/** The input fields an operation takes that are not in its path, with required fields marked. */
export function bodyOrQueryFields(op: Operation, inPath: readonly string[]): { name: string; required: boolean }[] {
  const shape = op.input.shape as Record<string, { def: { type: string } }>;
  return Object.entries(shape)
    .filter(([name]) => !inPath.includes(name))
    .map(([name, schema]) => ({ name, required: schema.def.type !== 'optional' }));
}
