import type { z } from 'zod';
import { isPlainObject, pathParams, type InvalidParam, type Operation } from '../../contract/index.js';
import { toInvalidParams } from './invalid-params.js';
import { invalidRequest } from './problem.js';

type FieldKind = 'number' | 'array' | 'other';

function fieldKind(schema: z.ZodType | undefined): FieldKind {
  let current = schema;
  while (current && (current.def.type === 'optional' || current.def.type === 'default' || current.def.type === 'nullable')) {
    current = (current.def as unknown as { innerType: z.ZodType }).innerType;
  }
  if (current?.def.type === 'number') return 'number';
  if (current?.def.type === 'array') return 'array';
  return 'other';
}

/** Query strings carry text: numbers and comma-separated lists are turned into what the schema expects. */
function coerceQueryValue(kind: FieldKind, value: string): unknown {
  if (kind === 'number') return /^-?\d+$/.test(value) ? Number(value) : value;
  if (kind === 'array') return value.split(',').map((part) => part.trim());
  return value;
}

interface RawRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * Builds an operation's flat input from a REST request (path params, then the query on GET and on uploads, whose
 * body is the file, or the JSON body otherwise) and validates it. Anything unrecognised, repeated or malformed is
 * refused with a 400 naming it.
 */
export function parseRestInput(op: Operation, request: RawRequest): unknown {
  const pathNames = pathParams(op);
  const shape = op.input.shape as Record<string, z.ZodType>;
  const restNames = (op.restNames ?? {}) as Record<string, string>;
  const contractNameOf = new Map(Object.keys(shape).map((name) => [restNames[name] ?? name, name]));
  const fromBody = op.method !== 'GET' && op.upload === undefined;
  const where: InvalidParam['in'] = fromBody ? 'body' : 'query';
  const refused: InvalidParam[] = [];
  const input: Record<string, unknown> = {};

  if (fromBody) {
    for (const name of Object.keys(request.query)) refused.push({ name, in: 'query', reason: 'unrecognised parameter' });
  }
  const raw = fromBody ? (request.body ?? {}) : request.query;
  if (!isPlainObject(raw)) {
    throw invalidRequest([{ name: 'body', in: 'body', reason: 'must be a JSON object' }]);
  }

  for (const [restName, value] of Object.entries(raw)) {
    const name = contractNameOf.get(restName);
    if (name === undefined || pathNames.includes(name)) {
      refused.push({ name: restName, in: where, reason: 'unrecognised parameter' });
    } else if (!fromBody && Array.isArray(value)) {
      refused.push({ name: restName, in: where, reason: 'given more than once' });
    } else {
      input[name] = fromBody ? value : coerceQueryValue(fieldKind(shape[name]), String(value));
    }
  }
  for (const name of pathNames) input[name] = request.params[name];
  if (refused.length > 0) throw invalidRequest(refused);

  const parsed = op.input.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidRequest(
    toInvalidParams(
      parsed.error.issues,
      (field) => (pathNames.includes(field) ? { name: field, in: 'path' } : { name: restNames[field] ?? field, in: where }),
      where,
    ),
  );
}
