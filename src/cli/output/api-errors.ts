import {
  MemoryApiError,
  MemoryConnectionError,
  MemoryOutcomeUnknownError,
} from '../../client/errors.js';
import { authError, CliError, usageError } from '../errors.js';

/** What the failing command was, so a failure can name its flags and the next command to run. */
export interface ErrorContext {
  /** The command as typed after `memory`, e.g. `decisions confirm`. */
  command: string;
  /** The noun, for `memory <noun> list` and `memory <noun> get` hints. */
  noun: string;
  /** The noun has a `list` verb. */
  listable: boolean;
  deployment?: string;
  /** The command changes memory (needs a read_write grant). */
  write: boolean;
  /** The record id the command acted on, when it took one. */
  recordId?: string;
  /** How the user passes a parameter the core names (REST name) on this command: `--due-date`, `<query>`. */
  flagOf(name: string): string;
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Turns a client failure into one sentence and the next step, with the exit code the CLI promises (4 for a refused
 * token, 2 for refused flags, 1 otherwise). Anything that is not a client failure is returned unchanged.
 */
export function toCliError(error: unknown, context: ErrorContext): unknown {
  if (error instanceof MemoryOutcomeUnknownError) return outcomeUnknown(context);
  if (error instanceof MemoryApiError) return apiFailure(error, context);
  if (error instanceof MemoryConnectionError) return connectionFailure(error);
  return error;
}

function outcomeUnknown(context: ErrorContext): CliError {
  const check = context.recordId
    ? `memory ${context.noun} get ${context.recordId}`
    : `memory ${context.noun} list`;
  return new CliError('The core was unavailable (503) and the outcome of the change is unknown: it may have been applied.', {
    hint: `check with \`${check}\` before repeating it`,
  });
}

function apiFailure(error: MemoryApiError, context: ErrorContext): CliError {
  const where = context.deployment ? ` on deployment ${context.deployment}` : '';
  const requestId = error.requestId ? ` (request ${error.requestId})` : '';
  switch (error.status) {
    case 400:
      return refused(error, context);
    case 401:
      return authError(`The core refused the token (401): ${error.message}`, 'run `memory login`, or set MEMORY_TOKEN to a fresh token');
    case 403:
      return new CliError(`Not allowed${where}: you have no grant for this${context.write ? ' change' : ''} (403).`, {
        hint: context.write
          ? `ask an admin for a read_write grant${where}`
          : `ask an admin for a grant${where}; \`memory deployments list\` shows the ones you can reach`,
      });
    case 404:
      return new CliError(`No such ${singular(context.noun)}${context.recordId ? ` ${context.recordId}` : ''}${where} (404).`, {
        hint: context.listable
          ? `check the id with \`memory ${context.noun} list\``
          : 'find ids with `memory search <words>`',
      });
    case 429:
      return new CliError('Too many requests: the core rate-limits each principal to 600 calls a minute (429).', {
        hint: `wait ${error.retryAfterSeconds ?? 60} seconds and try again`,
      });
    case 502:
      return new CliError(`The change was not applied: the core's upstream refused it (502)${requestId}.`, {
        hint: 'retrying will not help; ask the operator of the core',
      });
    case 503:
      return new CliError(`The memory is unavailable right now (503)${requestId}, even after retrying.`, {
        hint: 'try again in a minute',
      });
    default:
      return new CliError(`The core failed the request (${error.status}): ${error.message}${requestId}.`, {
        hint: error.status >= 500 ? 'report it to the operator of the core with the request id' : `see \`memory ${context.command} --help\``,
      });
  }
}

function refused(error: MemoryApiError, context: ErrorContext): CliError {
  const params = error.invalidParams;
  if (params.length === 0) return usageError(`The core refused the request: ${error.message}`, `see \`memory ${context.command} --help\``);
  const named = params.map((param) => `${context.flagOf(param.name)} ${param.reason}`).join('; ');
  return usageError(`The core refused ${named}.`, `see \`memory ${context.command} --help\``);
}

function connectionFailure(error: MemoryConnectionError): CliError {
  if (error.code !== undefined && TLS_CODES.has(error.code)) {
    return new CliError(`The core's certificate is not trusted (${error.code}).`, {
      hint: "set MEMORY_CA_FILE (or --ca-file) to the core's CA certificate",
    });
  }
  const origin = new URL(error.url).origin;
  return new CliError(`Cannot reach the core at ${origin}${error.code ? ` (${error.code})` : ''}.`, {
    hint: 'check that the core is running and that MEMORY_BASE_URL (or --base-url) is right',
  });
}

function singular(noun: string): string {
  const names: Record<string, string> = {
    decisions: 'decision',
    questions: 'open question',
    'action-items': 'action item',
    meetings: 'meeting',
    deployments: 'deployment',
  };
  return names[noun] ?? 'record';
}
