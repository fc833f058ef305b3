import type { FastifyRequest } from 'fastify';
import type { Caller } from '../access/index.js';

/**
 * What one API call was, as the surfaces learn it: who called, which operation on which deployment and records.
 * REST and MCP fill it in as they go; whatever watches calls (the audit log) reads it when the response is sent,
 * so refused calls are described as far as they got.
 */
export interface CallRecord {
  surface: 'rest' | 'mcp';
  caller?: Caller;
  operation?: string;
  deploymentId?: string;
  recordIds: string[];
  /** For MCP, the status a tool result stands for (HTTP says 200 for a tool error). */
  outcomeStatus?: number;
  /**
   * Whether the call reads or changes something, which decides how long its audit entry is kept. Unset, it follows
   * from the contract operation, else from the HTTP method; routes outside the contract (admin) may set it.
   */
  kind?: 'read' | 'action';
  /** Whether the store appended the call's audit entry with its change, so nothing else may write one. */
  auditWritten?: boolean;
}

const records = new WeakMap<FastifyRequest, CallRecord>();

/** The call record of a request, created on first use. */
export function callRecordOf(request: FastifyRequest, surface: CallRecord['surface'] = 'rest'): CallRecord {
  let record = records.get(request);
  if (!record) {
    record = { surface, recordIds: [] };
    records.set(request, record);
  }
  return record;
}

/** The call record of a request if any surface described it (problem pages and health have none). */
export function findCallRecord(request: FastifyRequest): CallRecord | undefined {
  return records.get(request);
}
