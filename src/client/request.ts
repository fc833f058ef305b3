import { pathParams, type Operation } from '../contract/index.js';

/** An HTTP request for one operation call, relative to the base URL's path. */
export interface BuiltRequest {
  method: Operation['method'];
  /** Path and query string, appended to the base URL's path (e.g. `/deployments/d1/search?q=x`). */
  path: string;
  /** JSON body for POST and PATCH; undefined for GET. */
  body?: string;
}

/**
 * Turns an operation's flat input into its REST request, as the contract places it: fields named in the path go
 * into the path (URL-encoded), `restNames` renames (search `query` is `q`), and the rest go into the query string
 * on GET and uploads (arrays joined with commas) or into the JSON body otherwise. Undefined fields are left out.
 */
export function buildRequest(
  op: Pick<Operation, 'name' | 'method' | 'path' | 'restNames' | 'upload'>,
  input: object,
): BuiltRequest {
  const fields = input as Record<string, unknown>;
  const inPath = new Set(pathParams(op));
  let path = op.path;
  for (const name of inPath) {
    const value = fields[name];
    if (value === undefined || value === null || value === '') {
      throw new TypeError(`${op.name}: ${name} is required`);
    }
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  }
  const rest: [string, unknown][] = Object.entries(fields)
    .filter(([name, value]) => !inPath.has(name) && value !== undefined)
    .map(([name, value]) => [op.restNames?.[name] ?? name, value]);
  // An upload's body is the file, so its fields travel in the query like a GET's.
  if (op.method === 'GET' || op.upload) return { method: op.method, path: path + queryString(rest) };
  return { method: op.method, path, body: JSON.stringify(Object.fromEntries(rest)) };
}

function queryString(entries: [string, unknown][]): string {
  if (entries.length === 0) return '';
  const query = new URLSearchParams();
  for (const [name, value] of entries) {
    query.append(name, Array.isArray(value) ? value.map(String).join(',') : String(value));
  }
  return `?${query.toString()}`;
}
