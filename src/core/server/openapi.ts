import { z } from 'zod';
import { ADMIN_OPERATIONS } from '../../contract/admin-operations.js';
import { OPERATIONS, ProblemDocument, pathParams, type Operation } from '../../contract/index.js';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDocument' } } },
});

const ERROR_RESPONSES = {
  '400': problemResponse('Refused: invalid_params names each unrecognised or malformed parameter'),
  '401': problemResponse('No usable token'),
  '403': problemResponse('No grant for this deployment, or a read-only grant on a change'),
  '404': problemResponse('No such record in this deployment'),
  '429': problemResponse('Over the rate limit; honour Retry-After'),
  '503': problemResponse('Memory unreachable; on a write, read back before repeating'),
};

function parametersOf(op: Operation, input: JsonSchema) {
  const inPath = pathParams(op);
  const renames = (op.restNames ?? {}) as Record<string, string>;
  const required = new Set(input.required ?? []);
  return Object.entries(input.properties ?? {})
    .filter(([name]) => inPath.includes(name) || op.method === 'GET' || op.upload !== undefined)
    .map(([name, schema]) => {
      const isArray = schema.type === 'array';
      return {
        name: renames[name] ?? name,
        in: inPath.includes(name) ? 'path' : 'query',
        required: inPath.includes(name) || required.has(name),
        description: schema.description,
        schema: isArray ? { type: 'string', description: 'comma-separated list' } : schema,
        ...(isArray ? { explode: false } : {}),
      };
    });
}

function bodyOf(op: Operation, input: JsonSchema) {
  if (op.upload) {
    const file = { schema: { type: 'string', format: 'binary', maxLength: op.upload.maxBytes } };
    return { required: true, content: Object.fromEntries(op.upload.contentTypes.map((type) => [type, file])) };
  }
  const inPath = pathParams(op);
  const properties = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([name]) => !inPath.includes(name)));
  const required = (input.required ?? []).filter((name) => !inPath.includes(name));
  return {
    required: true,
    content: {
      'application/json': {
        schema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
      },
    },
  };
}

function operationObject(op: Operation) {
  const input = jsonSchema(op.input, 'input');
  return {
    operationId: op.name,
    summary: op.title,
    description: op.description,
    parameters: parametersOf(op, input),
    ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { requestBody: bodyOf(op, input) }),
    responses: {
      [String(op.successStatus)]: {
        description: op.successStatus === 201 ? 'Created; Location names the new record' : 'OK',
        content: { 'application/json': { schema: jsonSchema(op.output, 'output') } },
      },
      ...ERROR_RESPONSES,
    },
    security: [{ bearer: [] }],
    'x-mcp-tool': op.mcpTool,
    'x-access': op.access,
  };
}

/**
 * The OpenAPI 3.1 document of the REST surface, memory and admin operations, generated from the same tables as
 * the routes.
 */
export function buildOpenApiDocument(version: string, serverUrl = '/v1') {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of [...OPERATIONS, ...ADMIN_OPERATIONS] as readonly Operation[]) {
    paths[op.path] = { ...paths[op.path], [op.method.toLowerCase()]: operationObject(op) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Meeting Memory API', version },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { ProblemDocument: jsonSchema(ProblemDocument, 'output') },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
