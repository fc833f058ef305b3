import { describe, expect, it } from 'vitest';
import { MemoryApiError, MemoryConnectionError, MemoryOutcomeUnknownError } from '../../src/client/errors.js';
import { CliError, EXIT } from '../../src/cli/errors.js';
import { toCliError, type ErrorContext } from '../../src/cli/output/api-errors.js';

const context: ErrorContext = {
  command: 'questions resolve',
  noun: 'questions',
  listable: true,
  deployment: 'd1',
  write: true,
  recordId: 'q1',
  flagOf: (name) => `--${name.replaceAll('_', '-')}`,
};

const apiError = (status: number, extra: object = {}, retryAfter?: number) =>
  new MemoryApiError('resolveOpenQuestion', { type: `/v1/problems/x`, title: 'T', status, detail: 'D', request_id: 'r1', ...extra }, retryAfter);

function mapped(error: unknown, over: Partial<ErrorContext> = {}): CliError {
  const result = toCliError(error, { ...context, ...over });
  expect(result).toBeInstanceOf(CliError);
  return result as CliError;
}

describe('toCliError', () => {
  it('maps each status to an exit code and a next step', () => {
    expect(mapped(apiError(401))).toMatchObject({ exitCode: EXIT.auth, hint: expect.stringContaining('memory login') });
    expect(mapped(apiError(403))).toMatchObject({ exitCode: EXIT.error, hint: 'ask an admin for a read_write grant on deployment d1' });
    expect(mapped(apiError(403), { write: false }).hint).toContain('memory deployments list');
    expect(mapped(apiError(404))).toMatchObject({ exitCode: EXIT.error, hint: 'check the id with `memory questions list`' });
    expect(mapped(apiError(404), { noun: 'meetings', listable: false }).hint).toContain('memory search');
    expect(mapped(apiError(400, { invalid_params: [{ name: 'clear_note', in: 'body', reason: 'cannot be sent with note' }] }))).toMatchObject({
      exitCode: EXIT.usage,
      message: 'The core refused --clear-note cannot be sent with note.',
    });
    expect(mapped(apiError(429, {}, 7)).hint).toBe('wait 7 seconds and try again');
    expect(mapped(apiError(502)).hint).toContain('retrying will not help');
    expect(mapped(apiError(503)).message).toContain('even after retrying');
    expect(mapped(apiError(500)).message).toContain('request r1');
  });

  it('says a 503 write has an unknown outcome and how to check it', () => {
    const error = mapped(new MemoryOutcomeUnknownError('resolveOpenQuestion', { type: 'x', title: 'T', status: 503 }));
    expect(error.message).toContain('outcome of the change is unknown');
    expect(error.hint).toBe('check with `memory questions get q1` before repeating it');
    expect(mapped(new MemoryOutcomeUnknownError('createActionItem', { type: 'x', title: 'T', status: 503 }), {
      noun: 'action-items',
      recordId: undefined,
    }).hint).toContain('memory action-items list');
  });

  it('points an untrusted certificate at MEMORY_CA_FILE and a refused connection at the address', () => {
    const tls = Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    expect(mapped(new MemoryConnectionError('listDecisions', 'https://core:8443/v1/x', tls)).hint).toContain('MEMORY_CA_FILE');
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = mapped(new MemoryConnectionError('listDecisions', 'https://core:8443/v1/x', refused));
    expect(error.message).toBe('Cannot reach the core at https://core:8443 (ECONNREFUSED).');
    expect(error.hint).toContain('MEMORY_BASE_URL');
  });

  it('leaves other errors alone', () => {
    const bug = new TypeError('oops');
    expect(toCliError(bug, context)).toBe(bug);
  });
});
