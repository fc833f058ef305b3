import { useCallback, useEffect, useRef, useState } from 'react';
import { MemoryApiError, type Meeting, type MemoryClient } from '../../client/index.js';
import { loadTab, type TabSpec, type TuiRecord } from './records.js';

/** A failure as one line for the footer: the core's problem in words, or the sign-in error's next step. */
export function describeError(error: unknown): string {
  if (error instanceof MemoryApiError) {
    if (error.status === 403) return `Not allowed (403): ${error.message}`;
    return `The core answered ${error.status}: ${error.message}`;
  }
  if (error instanceof Error) {
    const hint = (error as { hint?: unknown }).hint;
    return typeof hint === 'string' ? `${error.message} Next: ${hint}` : error.message;
  }
  return String(error);
}

export interface RecordsState {
  items: TuiRecord[];
  loading: boolean;
  error?: string;
  /** Puts a changed record in place of its old version. */
  replace(record: TuiRecord): void;
}

/**
 * The records of a tab for a query. Typing restarts a `delayMs` pause before the search goes out, and an answer to
 * an outdated query is dropped (its request is aborted), so results always match the text on screen.
 */
export function useRecords(
  client: MemoryClient,
  deploymentId: string | undefined,
  tab: TabSpec,
  query: string,
  delayMs: number,
): RecordsState {
  const [state, setState] = useState<Omit<RecordsState, 'replace'>>({ items: [], loading: false });
  useEffect(() => {
    if (deploymentId === undefined) return undefined;
    const controller = new AbortController();
    setState((previous) => ({ items: previous.items, loading: true }));
    const timer = setTimeout(
      () => {
        loadTab(client, deploymentId, tab, query, controller.signal).then(
          (items) => {
            if (!controller.signal.aborted) setState({ items, loading: false });
          },
          (error: unknown) => {
            if (!controller.signal.aborted) setState({ items: [], loading: false, error: describeError(error) });
          },
        );
      },
      query.trim() === '' ? 0 : delayMs,
    );
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [client, deploymentId, tab, query, delayMs]);
  const replace = useCallback((record: TuiRecord) => {
    setState((previous) => ({ ...previous, items: previous.items.map((item) => (item.id === record.id ? record : item)) }));
  }, []);
  return { ...state, replace };
}

/** The meeting of the selected record, fetched once per meeting and kept for the session. */
export function useMeeting(client: MemoryClient, deploymentId: string | undefined, meetingId: string | null): Meeting | undefined {
  const cache = useRef(new Map<string, Meeting>());
  const [, setLoaded] = useState(0);
  useEffect(() => {
    if (deploymentId === undefined || meetingId === null || cache.current.has(meetingId)) return undefined;
    let current = true;
    client.getMeeting({ deployment_id: deploymentId, meeting_id: meetingId }).then(
      (meeting) => {
        cache.current.set(meetingId, meeting);
        if (current) setLoaded((count) => count + 1);
      },
      // Without the meeting the pane shows its id; the failure is not worth interrupting the user for.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client, deploymentId, meetingId]);
  return meetingId === null ? undefined : cache.current.get(meetingId);
}
