import { MemoryApiError, MemoryClientError, type MemoryClient } from '../client/index.js';
import {
  PROBLEM_TYPES,
  operationByName,
  pathParams,
  problemTypeUri,
  type AnyOperation,
  type InvalidParam,
  type ProblemDocument,
} from '../contract/index.js';
import type { InvocationOutcome, OperationInvoker } from '../contract/mcp-surface.js';

/** The contract's field name of a REST name (`q` is search's `query`), for a refusal that names arguments. */
function argumentName(op: AnyOperation, restName: string): string {
  const [head = restName, ...rest] = restName.split('.');
  const renames = Object.entries((op.restNames ?? {}) as Record<string, string>);
  const field = renames.find(([, rename]) => rename === head)?.[0] ?? head;
  return [field, ...rest].join('.');
}

/** The core refused the REST request it was sent; to the model those were tool arguments, so name them so. */
function asArgumentsProblem(op: AnyOperation, problem: ProblemDocument): ProblemDocument {
  if (!problem.invalid_params) return problem;
  return {
    ...problem,
    invalid_params: problem.invalid_params.map((param) => ({ ...param, name: argumentName(op, param.name), in: 'arguments' })),
  };
}

function invalidArguments(invalidParams: InvalidParam[]): InvocationOutcome {
  const { status, title } = PROBLEM_TYPES['invalid-request'];
  return {
    ok: false,
    status,
    problem: { type: problemTypeUri('invalid-request'), title, status, detail: 'The request has invalid parameters.', invalid_params: invalidParams },
  };
}

/** The core could not be reached or its answer not read: to the model, memory was unavailable. */
function unreachable(error: MemoryClientError): InvocationOutcome {
  const { status, title } = PROBLEM_TYPES.unavailable;
  return { ok: false, status, problem: { type: problemTypeUri('unavailable'), title, status, detail: error.message } };
}

/**
 * Runs tool calls as REST calls on a core through the typed client. The core validates them; only the path
 * parameters are checked here, since without them there is no request to send.
 */
export function createClientInvoker(client: MemoryClient, log: (line: string) => void = () => {}): OperationInvoker {
  return {
    async call(name, args, context) {
      const op = operationByName(name);
      const missing = pathParams(op).filter((param) => typeof args[param] !== 'string' || args[param] === '');
      if (missing.length > 0) {
        return invalidArguments(missing.map((param) => ({ name: param, in: 'arguments', reason: 'required: a non-empty string' })));
      }
      try {
        const json = await client.callJson(name, args as never, { signal: context.signal });
        return { ok: true, status: op.successStatus, json };
      } catch (error) {
        if (error instanceof MemoryApiError) {
          return { ok: false, status: error.status, problem: asArgumentsProblem(op, error.problem) };
        }
        if (error instanceof MemoryClientError) {
          log(`${name}: ${error.message}`);
          return unreachable(error);
        }
        throw error;
      }
    },
  };
}
