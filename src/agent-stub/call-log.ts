/** One line of the stub's call log: who called, what the stub decided, and how long it took. */
export interface CallLogEntry {
  time: string;
  /** Null when the request was refused before its body could be trusted (bad signature, too large, bad JSON). */
  invocation_id: string | null;
  round: number | null;
  /** `answered`, `tool_calls`, or the slug of the refusal or failure. */
  verdict: string;
  status: number;
  latency_ms: number;
  mode: string;
  detail?: string;
}

/** Formats an entry as a JSON line (for pipes and log shippers) or as one readable line (for a terminal). */
export function formatCallLog(entry: CallLogEntry, json: boolean): string {
  if (json) return JSON.stringify(entry);
  const who = entry.invocation_id ? `invocation ${entry.invocation_id} round ${entry.round}` : 'invocation -';
  const detail = entry.detail ? `  (${entry.detail})` : '';
  return `${entry.time}  ${entry.status} ${entry.verdict}  ${who}  ${entry.latency_ms} ms${detail}`;
}
