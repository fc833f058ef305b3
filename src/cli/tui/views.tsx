import { Box, Text } from 'ink';
import type { Deployment, Meeting } from '../../client/index.js';
import { truncate } from '../output/terminal.js';
import { detailRows, detailText, detailTitle, listLine } from './format.js';
import { TABS, type TuiAction, type TuiRecord } from './records.js';

/** The tab names, the current one highlighted, and the deployment and its access on the right. */
export function TabBar({ tab, deployment }: { tab: number; deployment: Deployment }) {
  return (
    <Box justifyContent="space-between">
      <Box gap={1}>
        {TABS.map((spec, index) => (
          <Text key={spec.key} inverse={index === tab} bold={index === tab}>
            {` ${index + 1} ${spec.label} `}
          </Text>
        ))}
      </Box>
      <Text dimColor>
        {deployment.name} · {deployment.access === 'read_write' ? 'read_write' : 'read-only'}
      </Text>
    </Box>
  );
}

/** The search line: the query as typed, with a cursor while it has the focus. */
export function SearchLine({ query, focused, loading }: { query: string; focused: boolean; loading: boolean }) {
  return (
    <Box>
      <Text color={focused ? 'cyan' : undefined}>Search: </Text>
      <Text>{query}</Text>
      {focused ? <Text inverse> </Text> : null}
      {!focused && query === '' ? <Text dimColor>(press / to search)</Text> : null}
      {loading ? <Text dimColor> searching…</Text> : null}
    </Box>
  );
}

/** A window of the list around the selected row. */
export function RecordList({ records, selected, height, width }: { records: TuiRecord[]; selected: number; height: number; width: number }) {
  const start = Math.max(0, Math.min(selected - Math.floor(height / 2), records.length - height));
  const shown = records.slice(start, start + height);
  return (
    <Box flexDirection="column" height={height}>
      {shown.map((record, offset) => {
        const index = start + offset;
        const line = listLine(record);
        const prefix = `${index === selected ? '›' : ' '} ${line.tag.padEnd(10)} ${line.date.padEnd(16)} `;
        return (
          <Text key={record.id} inverse={index === selected} wrap="truncate">
            {prefix + truncate(line.text, Math.max(10, width - prefix.length))}
          </Text>
        );
      })}
    </Box>
  );
}

/** The selected record in full: text, attribution, meeting, timestamps and the last change. */
export function DetailPane({ record, meeting }: { record: TuiRecord | undefined; meeting?: Meeting }) {
  if (record === undefined) return <Text dimColor>Nothing selected.</Text>;
  const rows = detailRows(record, meeting);
  const labelWidth = Math.max(...rows.map(([label]) => label.length)) + 2;
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>{detailTitle(record)}</Text>
      <Text wrap="wrap">{detailText(record)}</Text>
      {rows.map(([label, value]) => (
        <Box key={label}>
          <Box width={labelWidth} flexShrink={0}>
            <Text dimColor>{label}</Text>
          </Box>
          <Text wrap="wrap">{value}</Text>
        </Box>
      ))}
    </Box>
  );
}

/** The confirmation of a change, with the note being typed when the change takes one. */
export function ConfirmBox({ action, record, note, busy }: { action: TuiAction; record: TuiRecord; note: string; busy: boolean }) {
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="yellow" paddingX={1}>
      <Text bold>{action.label}?</Text>
      <Text wrap="truncate">{detailText(record)}</Text>
      {action.takesNote ? (
        <Box>
          <Text>Note (optional): </Text>
          <Text>{note}</Text>
          <Text inverse> </Text>
        </Box>
      ) : null}
      <Text dimColor>{busy ? 'Applying…' : action.takesNote ? 'Enter applies · Esc cancels' : 'y or Enter applies · n or Esc cancels'}</Text>
    </Box>
  );
}

const HELP_ROWS: [string, string][] = [
  ['← → / Tab / 1-5', 'switch tabs'],
  ['↑ ↓ / j k', 'move through the list'],
  ['/', 'search as you type (Esc clears, Enter returns to the list)'],
  ['c / s', 'confirm / supersede a decision'],
  ['r / o', 'resolve / reopen a question'],
  ['x / o', 'mark an action item done / reopen it'],
  ['d', 'pick another deployment'],
  ['?', 'this help'],
  ['q / Esc', 'quit'],
];

/** Keyboard help, shown on `?`. */
export function HelpBox({ canWrite }: { canWrite: boolean }) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>Keys</Text>
      {HELP_ROWS.map(([keys, what]) => (
        <Box key={keys}>
          <Box width={18} flexShrink={0}>
            <Text color="cyan">{keys}</Text>
          </Box>
          <Text>{what}</Text>
        </Box>
      ))}
      {canWrite ? null : <Text dimColor>Your grant on this deployment is read-only: changes are not offered.</Text>}
      <Text dimColor>Press any key to close.</Text>
    </Box>
  );
}

/** The deployment picker: every deployment the principal can reach, with its access. */
export function DeploymentPicker({ deployments, selected }: { deployments: Deployment[]; selected: number }) {
  return (
    <Box flexDirection="column">
      <Text bold>Pick a deployment (↑ ↓, Enter):</Text>
      {deployments.map((deployment, index) => (
        <Text key={deployment.id} inverse={index === selected}>
          {`${index === selected ? '›' : ' '} ${deployment.name} (${deployment.platform}, ${deployment.access})  ${deployment.id}`}
        </Text>
      ))}
    </Box>
  );
}

/** The footer: what the keys do now, or the last message. */
export function Footer({ message, actions, canWrite }: { message?: { text: string; error: boolean }; actions: TuiAction[]; canWrite: boolean }) {
  if (message) return <Text color={message.error ? 'red' : 'green'}>{message.text}</Text>;
  const changes = canWrite ? actions.map((action) => `${action.key} ${action.label.toLowerCase()}`) : [];
  return <Text dimColor>{[...changes, '/ search', '? help', 'q quit'].join(' · ')}</Text>;
}
