import type { z } from 'zod';
import type { InvalidParam } from '../../contract/index.js';

type Location = InvalidParam['in'];

/**
 * Turns zod issues into the `invalid_params` of a 400. `locate` says where a field came from (path, query, body,
 * arguments) and what the caller called it, since REST names can differ from the contract's (`q` for `query`).
 */
export function toInvalidParams(
  issues: readonly z.core.$ZodIssue[],
  locate: (field: string) => { name: string; in: Location },
  whole: Location,
): InvalidParam[] {
  return issues.flatMap((issue): InvalidParam[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ ...locate(key), reason: 'unrecognised parameter' }));
    }
    const field = issue.path[0];
    if (field === undefined) return [{ name: whole, in: whole, reason: issue.message }];
    const nested = issue.path.slice(1).join('.');
    const place = locate(String(field));
    return [{ ...place, name: nested ? `${place.name}.${nested}` : place.name, reason: issue.message }];
  });
}
