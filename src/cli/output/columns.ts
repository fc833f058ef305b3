import type { Column } from './table.js';

type Row = Record<string, unknown>;

/** `2025-03-04T10:00:00Z` as `2025-03-04 10:00` (UTC), or `-`. */
export function when(value: unknown): string {
  return typeof value === 'string' && value.length >= 16 ? value.slice(0, 16).replace('T', ' ') : '-';
}

/** A person or principal by display name, else by kind (`anonymous`), or `-`. */
export function who(value: unknown): string {
  if (value === null || typeof value !== 'object') return '-';
  const attribution = value as { kind?: unknown; display_name?: unknown };
  if (typeof attribution.display_name === 'string' && attribution.display_name !== '') return attribution.display_name;
  return typeof attribution.kind === 'string' ? attribution.kind : '-';
}

const str = (record: Row, field: string) => {
  const value = record[field];
  return value === null || value === undefined ? '-' : String(value);
};

const idColumn: Column = { header: 'ID', value: (r) => str(r, 'id'), id: true };
const statusColumn: Column = { header: 'STATUS', value: (r) => str(r, 'status'), status: true };
const textColumn = (field = 'text'): Column => ({ header: field.toUpperCase(), value: (r) => str(r, field), flex: true });
const timeColumn = (header: string, field: string): Column => ({ header, value: (r) => when(r[field]) });
const byColumn = (header: string, field: string): Column => ({ header, value: (r) => who(r[field]) });

/** The timestamp each kind of record is best known by, for search results. */
const TIME_FIELD: Record<string, string> = {
  decision: 'decided_at',
  open_question: 'raised_at',
  action_item: 'created_at',
  statement: 'spoken_at',
  topic: 'last_discussed_at',
};

const COLUMNS: Record<string, Column[]> = {
  decision: [idColumn, statusColumn, timeColumn('DECIDED', 'decided_at'), byColumn('BY', 'attribution'), textColumn()],
  open_question: [idColumn, statusColumn, timeColumn('RAISED', 'raised_at'), byColumn('BY', 'attribution'), textColumn()],
  action_item: [
    idColumn,
    statusColumn,
    { header: 'DUE', value: (r) => str(r, 'due_date') },
    byColumn('ASSIGNEE', 'assignee'),
    textColumn(),
  ],
  statement: [idColumn, timeColumn('SPOKEN', 'spoken_at'), byColumn('BY', 'attribution'), textColumn()],
  topic: [
    idColumn,
    { header: 'KIND', value: (r) => str(r, 'kind') },
    timeColumn('LAST DISCUSSED', 'last_discussed_at'),
    { header: 'MEETINGS', value: (r) => String(Array.isArray(r.meetings) ? r.meetings.length : 0) },
    textColumn('name'),
  ],
  deployment: [
    { header: 'ID', value: (r) => str(r, 'id') },
    { header: 'PLATFORM', value: (r) => str(r, 'platform') },
    { header: 'ACCESS', value: (r) => str(r, 'access') },
    textColumn('name'),
  ],
  service_principal: [
    { header: 'CLIENT ID', value: (r) => str(r, 'client_id'), id: true },
    { header: 'ADMIN', value: (r) => (r.is_admin === true ? 'yes' : 'no') },
    timeColumn('CREATED', 'created_at'),
    textColumn('display_name'),
  ],
  grant: [
    { header: 'CLIENT ID', value: (r) => str(r, 'client_id'), id: true },
    { header: 'DEPLOYMENT', value: (r) => str(r, 'deployment_id') },
    { header: 'ACCESS', value: (r) => str(r, 'access') },
  ],
  person: [{ header: 'IDP ID', value: (r) => str(r, 'idp_id') }, textColumn('display_name')],
  audit_entry: [
    timeColumn('AT', 'at'),
    { header: 'STATUS', value: (r) => str(r, 'status') },
    { header: 'SURFACE', value: (r) => str(r, 'surface') },
    { header: 'PRINCIPAL', value: (r) => str(r, 'principal_oid') },
    { header: 'REQUEST', value: (r) => str(r, 'request_id'), id: true },
    textColumn('operation'),
  ],
  search: [
    { header: 'SCORE', value: (r) => (typeof r.score === 'number' ? r.score.toFixed(2) : '-') },
    { header: 'TYPE', value: (r) => str(r, 'type') },
    idColumn,
    { header: 'WHEN', value: (r) => when(r[TIME_FIELD[String(r.type)] ?? 'created_at']) },
    textColumn(),
  ],
};

const FALLBACK: Column[] = [idColumn, { header: 'TYPE', value: (r) => str(r, 'type') }, timeColumn('CREATED', 'created_at')];

/** The table columns for a list of records of one type, or for search results (`search`). */
export function columnsFor(type: string): Column[] {
  return COLUMNS[type] ?? FALLBACK;
}
