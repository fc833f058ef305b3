import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Deployment, MemoryClient } from '../../client/index.js';
import { meetingIdOf } from './format.js';
import { describeError, useMeeting, useRecords } from './hooks.js';
import { ACTIONS, actionsFor, TABS, type TuiAction, type TuiRecord } from './records.js';
import { ConfirmBox, DeploymentPicker, DetailPane, Footer, HelpBox, RecordList, SearchLine, TabBar } from './views.js';

export interface AppProps {
  client: MemoryClient;
  /** The deployment to open without asking (the profile's default or `--deployment`). */
  initialDeployment?: string;
  /** How long typing must pause before a search goes out. */
  searchDelayMs?: number;
}

type Mode = 'list' | 'search' | 'confirm' | 'help';
type Message = { text: string; error: boolean };

const DETAIL_ROWS = 12;
const CHROME_ROWS = 5;

function isPrintable(input: string, key: Key): boolean {
  return input !== '' && !key.ctrl && !key.meta && !key.return && !key.tab && !key.escape && !/[\u0000-\u001f\u007f]/.test(input);
}

/** The deployments, then the one to open: the named one, or the only one; else the user picks. */
function useDeployments(client: MemoryClient, initialDeployment: string | undefined, onOpen: (deployment: Deployment) => void) {
  const [deployments, setDeployments] = useState<Deployment[]>();
  const [failure, setFailure] = useState<string>();
  useEffect(() => {
    client.listDeployments().then(
      ({ items }) => {
        setDeployments(items);
        const chosen = initialDeployment === undefined ? (items.length === 1 ? items[0] : undefined) : items.find((item) => item.id === initialDeployment);
        if (chosen) onOpen(chosen);
        if (items.length === 0) setFailure('You have a grant on no deployment: ask an admin for one.');
      },
      (error: unknown) => setFailure(describeError(error)),
    );
  }, [client, initialDeployment, onOpen]);
  return { deployments, failure };
}

interface UiState {
  deployment?: Deployment;
  /** The highlighted row of the deployment picker. */
  picked: number;
  tab: number;
  query: string;
  mode: Mode;
  selected: number;
  pending?: { action: TuiAction; record: TuiRecord };
  note: string;
  busy: boolean;
  message?: Message;
}

/**
 * The UI state, kept in a ref that key handling reads and writes synchronously and mirrored into renders. Keys can
 * arrive faster than React re-renders (a paste, tmux send-keys): each must see the state the previous one left, not
 * the state of the last render.
 */
function useUiState(): [UiState, (change: Partial<UiState>) => void, { readonly current: UiState }] {
  const ref = useRef<UiState>({ picked: 0, tab: 0, query: '', mode: 'list', selected: 0, note: '', busy: false });
  const [, rendered] = useState(0);
  const set = useCallback((change: Partial<UiState>) => {
    ref.current = { ...ref.current, ...change };
    rendered((count) => count + 1);
  }, []);
  return [ref.current, set, ref];
}

/**
 * The memory TUI: pick a deployment, then tabs of decisions, open questions, action items, topics and meetings with
 * search as you type, a detail pane, and the workflow changes (with a confirmation and an optional note) when the
 * grant is read_write.
 */
export function App({ client, initialDeployment, searchDelayMs = 300 }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [ui, set, live] = useUiState();
  const openDeployment = useCallback((deployment: Deployment) => set({ deployment }), [set]);
  const { deployments, failure } = useDeployments(client, initialDeployment, openDeployment);
  const { deployment, tab, query, mode, pending } = ui;
  const spec = TABS[tab]!;
  const records = useRecords(client, deployment?.id, spec, query, searchDelayMs);
  const selected = Math.max(0, Math.min(ui.selected, records.items.length - 1));
  const record: TuiRecord | undefined = records.items[selected];
  const meeting = useMeeting(client, deployment?.id, meetingIdOf(record));
  const canWrite = deployment?.access === 'read_write';
  const width = stdout.columns || 80;
  const listHeight = Math.max(3, (stdout.rows || 24) - DETAIL_ROWS - CHROME_ROWS);

  // What the last committed frame shows, for key handlers that may run before React hands them a newer closure.
  const view = useRef<{ records: TuiRecord[]; deployments?: Deployment[]; failure?: string }>({ records: [] });
  useLayoutEffect(() => {
    view.current = { records: records.items, deployments, failure };
  });
  const selectedRecord = (): TuiRecord | undefined => {
    const items = view.current.records;
    return items[Math.max(0, Math.min(live.current.selected, items.length - 1))];
  };

  const switchTab = (next: number) => set({ tab: (next + TABS.length) % TABS.length, selected: 0 });

  const apply = (action: TuiAction, target: TuiRecord) => {
    const current = live.current.deployment;
    if (current === undefined) return;
    set({ busy: true });
    action.run(client, current.id, target, live.current.note).then(
      (changed) => {
        records.replace(changed);
        set({ busy: false, pending: undefined, mode: 'list', message: { text: `${action.label}: done.`, error: false } });
      },
      (error: unknown) =>
        set({ busy: false, pending: undefined, mode: 'list', message: { text: `${action.label} failed: ${describeError(error)}`, error: true } }),
    );
  };

  const startAction = (input: string) => {
    if (!ACTIONS.some((action) => action.key === input)) return;
    const current = live.current.deployment;
    if (current?.access !== 'read_write') {
      set({ message: { text: `Your grant on ${current?.name} is read-only: changes need read_write.`, error: true } });
      return;
    }
    const target = selectedRecord();
    const action = actionsFor(target).find((candidate) => candidate.key === input);
    if (action !== undefined && target !== undefined) set({ pending: { action, record: target }, note: '', mode: 'confirm' });
  };

  const onPicker = (input: string, key: Key) => {
    const choices = view.current.deployments ?? [];
    const { picked } = live.current;
    if (input === 'q' || key.escape) return exit();
    if (key.upArrow || input === 'k') set({ picked: Math.max(0, picked - 1) });
    if (key.downArrow || input === 'j') set({ picked: Math.min(choices.length - 1, picked + 1) });
    const chosen = choices[picked];
    if (key.return && chosen) set({ deployment: chosen, tab: 0, selected: 0, query: '' });
  };

  const onConfirm = (input: string, key: Key) => {
    const { pending: current, busy, note } = live.current;
    if (current === undefined || busy) return;
    const { action } = current;
    if (key.escape || (!action.takesNote && input === 'n')) return set({ pending: undefined, mode: 'list' });
    if (key.return || (!action.takesNote && input === 'y')) return apply(action, current.record);
    if (!action.takesNote) return;
    if (key.backspace || key.delete) set({ note: note.slice(0, -1) });
    else if (isPrintable(input, key)) set({ note: note + input });
  };

  const onSearch = (input: string, key: Key) => {
    const text = live.current.query;
    if (key.escape) set({ query: '', mode: 'list', selected: 0 });
    else if (key.return || key.downArrow) set({ mode: 'list' });
    else if (key.backspace || key.delete) set({ query: text.slice(0, -1), selected: 0 });
    else if (isPrintable(input, key)) set({ query: text + input, selected: 0 });
  };

  const onList = (input: string, key: Key) => {
    const current = live.current;
    if (input === 'q' || key.escape) return exit();
    if (input === '?') return set({ mode: 'help' });
    if (input === '/') return set({ mode: 'search' });
    if (key.rightArrow || (key.tab && !key.shift)) return switchTab(current.tab + 1);
    if (key.leftArrow || (key.tab && key.shift)) return switchTab(current.tab - 1);
    if (/^[1-5]$/.test(input)) return switchTab(Number(input) - 1);
    if (key.upArrow || input === 'k') return set({ selected: Math.max(0, current.selected - 1) });
    if (key.downArrow || input === 'j') return set({ selected: Math.min(Math.max(0, view.current.records.length - 1), current.selected + 1) });
    if (input === 'd' && (view.current.deployments?.length ?? 0) > 1) return set({ deployment: undefined });
    startAction(input);
  };

  const onKey = (input: string, key: Key) => {
    const current = live.current;
    if (current.mode !== 'confirm' && current.message !== undefined) set({ message: undefined });
    if (view.current.failure !== undefined) return exit();
    if (current.deployment === undefined) return onPicker(input, key);
    if (current.mode === 'help') return set({ mode: 'list' });
    if (current.mode === 'confirm') return onConfirm(input, key);
    if (current.mode === 'search') return onSearch(input, key);
    onList(input, key);
  };

  // Ink hands over keys that arrive together (typing ahead, a paste, tmux send-keys) as one string: take them one
  // by one, so `? 1` closes the help and then switches tab instead of losing the `1`.
  useInput((input, key) => {
    if (isPrintable(input, key) && [...input].length > 1) for (const char of input) onKey(char, key);
    else onKey(input, key);
  });

  if (failure !== undefined) {
    return (
      <Box flexDirection="column">
        <Text color="red">{failure}</Text>
        <Text dimColor>Press any key to quit.</Text>
      </Box>
    );
  }
  if (deployments === undefined) return <Text dimColor>Loading deployments…</Text>;
  if (deployment === undefined) return <DeploymentPicker deployments={deployments} selected={ui.picked} />;
  return (
    <Box flexDirection="column" width={width}>
      <TabBar tab={tab} deployment={deployment} />
      <SearchLine query={query} focused={mode === 'search'} loading={records.loading && query !== ''} />
      {records.error ? (
        <Text color="red">{records.error}</Text>
      ) : records.items.length === 0 ? (
        <Text dimColor>{records.loading ? 'Loading…' : query ? `No ${spec.label.toLowerCase()} match "${query}".` : `No ${spec.label.toLowerCase()} yet.`}</Text>
      ) : (
        <RecordList records={records.items} selected={selected} height={Math.min(listHeight, records.items.length)} width={width} />
      )}
      {mode === 'help' ? (
        <HelpBox canWrite={canWrite} />
      ) : mode === 'confirm' && pending ? (
        <ConfirmBox action={pending.action} record={pending.record} note={ui.note} busy={ui.busy} />
      ) : (
        <DetailPane record={record} meeting={meeting} />
      )}
      <Footer message={ui.message} actions={actionsFor(record)} canWrite={canWrite} />
    </Box>
  );
}
