import { z } from 'zod';

/** Where a refused parameter was found. */
export const ParamLocation = z.enum(['query', 'body', 'path', 'arguments', 'header']);

export const InvalidParam = z.object({
  name: z.string(),
  in: ParamLocation,
  reason: z.string(),
});
export type InvalidParam = z.infer<typeof InvalidParam>;

/** RFC 9457 problem document, as every failure of the memory API is answered. */
export const ProblemDocument = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  request_id: z.string().optional(),
  invalid_params: z.array(InvalidParam).optional(),
});
export type ProblemDocument = z.infer<typeof ProblemDocument>;

/** Each kind of problem the core answers with: its status, title and what a client should do. */
export const PROBLEM_TYPES = {
  'invalid-request': {
    status: 400,
    title: 'The request was refused',
    guidance: 'A parameter or body field was unrecognised or malformed; `invalid_params` names each one. Fix them and send again.',
  },
  unauthorized: {
    status: 401,
    title: 'No usable token',
    guidance: 'Request a token with the client-credentials flow for a service principal and send it as `Authorization: Bearer <token>`.',
  },
  forbidden: {
    status: 403,
    title: 'Not allowed',
    guidance: 'No active grant for that deployment, or a read-only grant on a call that changes memory. Ask an admin for a grant.',
  },
  'not-found': {
    status: 404,
    title: 'No such record',
    guidance: 'No record with that id exists inside the deployment you are authorized for.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    guidance: 'This path does not take that method; see the OpenAPI document.',
  },
  'payload-too-large': {
    status: 413,
    title: 'Request body too large',
    guidance: 'Request bodies are capped at 1 MB.',
  },
  'unsupported-media-type': {
    status: 415,
    title: 'Unsupported content type',
    guidance: 'Send JSON bodies with `Content-Type: application/json`.',
  },
  'request-header-fields-too-large': {
    status: 431,
    title: 'Request headers too large',
    guidance:
      'The request line and headers together are capped at 16 KB; the connection is closed after this answer. Shorten the query string or the headers and send again on a new connection.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    guidance: 'Over the rate limit of this principal. Wait the seconds `Retry-After` says, then send again.',
  },
  'upstream-refused': {
    status: 502,
    title: 'Upstream refused the change',
    guidance: "The change was not applied because the service's own upstream refused it. Retrying will not help.",
  },
  unavailable: {
    status: 503,
    title: 'Memory unavailable',
    guidance: 'On a read, retry. On a write the outcome is unknown: read the record back before repeating the change.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    guidance: 'A bug in the service. Report it with the request_id.',
  },
} as const;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

/** The `type` URI reference of a problem kind; the core serves a page at this path. */
export function problemTypeUri(slug: ProblemSlug): string {
  return `/v1/problems/${slug}`;
}
