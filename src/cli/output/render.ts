import { columnsFor } from './columns.js';
import { renderRecord } from './detail.js';
import { renderTable } from './table.js';
import type { Terminal } from './terminal.js';

type Row = Record<string, unknown>;

export interface PrintOptions {
  /** `--json` was given. */
  json: boolean;
  /** What the records are called, for "No decisions found." */
  noun: string;
  /** Said on stderr after the data, on a terminal (e.g. "Decision confirmed."). */
  done?: string;
}

/**
 * Prints an operation's result: JSON when asked for or when stdout is not a terminal, else a table (lists, search)
 * or a field list (one record). Data goes to stdout; notes about it (empty, more pages, shortened ids) to stderr.
 */
export function printResult(result: unknown, terminal: Terminal, options: PrintOptions): void {
  if (options.json || !terminal.isTTY) {
    terminal.out(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const body = (result ?? {}) as Row;
  const records = Array.isArray(body.items) ? body.items : Array.isArray(body.results) ? body.results : undefined;
  if (records === undefined) {
    terminal.out(renderRecord(body, terminal.color));
  } else if (records.length === 0) {
    terminal.err(`No ${options.noun} found.\n`);
  } else {
    const type = Array.isArray(body.results) ? 'search' : String((records[0] as Row).type);
    const table = renderTable(records as Row[], columnsFor(type), { width: terminal.columns, color: terminal.color });
    terminal.out(table.text);
    if (table.shortenedIds) terminal.err('Ids are shortened to fit; use --json or a wider terminal for whole ids.\n');
  }
  for (const note of notes(body, options)) terminal.err(`${note}\n`);
}

function notes(body: Row, options: PrintOptions): string[] {
  const said: string[] = [];
  if (typeof body.next_cursor === 'string') {
    said.push(`More on the next page: add --all, or --cursor ${body.next_cursor}`);
  }
  if (body.was_capped === true) {
    said.push('More records matched than search considers, so paging will not reach them all: narrow the query.');
  }
  if (options.done) said.push(options.done);
  return said;
}
