import { when } from './columns.js';
import { cleanCell, styles } from './terminal.js';

type Row = Record<string, unknown>;

/** One record as `field  value` lines, for `get` and for the record a change returns. */
export function renderRecord(record: Row, color: boolean): string {
  const style = styles(color);
  const entries = Object.entries(record).filter(([, value]) => value !== undefined);
  const keyWidth = Math.max(...entries.map(([key]) => key.length));
  return `${entries.map(([key, value]) => `${style.bold(key.padEnd(keyWidth))}  ${formatValue(value)}`).join('\n')}\n`;
}

function formatValue(value: unknown): string {
  if (value === null) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(formatItem).join(', ');
  if (typeof value === 'object') return formatItem(value);
  return cleanCell(String(value));
}

function formatItem(item: unknown): string {
  if (item === null || typeof item !== 'object') return cleanCell(String(item));
  const fields = item as Row;
  if (isAttribution(fields)) {
    const name = fields.display_name ?? fields.kind;
    const extras = [fields.display_name === undefined ? undefined : fields.kind, fields.idp_id].filter(Boolean);
    return cleanCell(extras.length > 0 ? `${name} (${extras.join(', ')})` : name);
  }
  if (typeof fields.title === 'string') return cleanCell(`${fields.title} (${when(fields.started_at)})`);
  return cleanCell(
    Object.entries(fields)
      .map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
      .join(', '),
  );
}

function isAttribution(fields: Row): fields is { kind: string; display_name?: string; idp_id?: string } {
  return typeof fields.kind === 'string' && Object.keys(fields).every((key) => ['kind', 'display_name', 'idp_id'].includes(key));
}
