import { cleanCell, styles, textWidth, truncate } from './terminal.js';

type Row = Record<string, unknown>;

/** One table column: a header and how to get the cell text from a record. */
export interface Column {
  header: string;
  value(record: Row): string;
  /** Takes the width left over, truncated to fit (the text column). At most one per table. */
  flex?: boolean;
  /** A record id: shortened when the terminal is too narrow for whole ids. */
  id?: boolean;
  /** A workflow status: coloured. */
  status?: boolean;
}

/** How the table fits the terminal. */
export interface TableLayout {
  width: number;
  color: boolean;
}

const GAP = '  ';
/** The flex column keeps at least this much before ids are shortened. */
const MIN_FLEX = 30;
const SHORT_ID = 8;
const STATUS_STYLE: Record<string, 'green' | 'yellow' | 'dim'> = {
  confirmed: 'green',
  done: 'green',
  resolved: 'green',
  open: 'yellow',
  superseded: 'dim',
};

/**
 * Renders records as an aligned table that fits `width`: whole ids when they fit next to a useful text column,
 * else the last 8 characters after an ellipsis (`shortenedIds` tells the caller to say so), and the flex column
 * truncated to what is left.
 */
export function renderTable(records: Row[], columns: Column[], layout: TableLayout): { text: string; shortenedIds: boolean } {
  const style = styles(layout.color);
  const cells = records.map((record) => columns.map((column) => cleanCell(column.value(record))));
  const widthOf = (index: number, values: string[][]) =>
    Math.max(textWidth(columns[index]!.header), ...values.map((row) => textWidth(row[index]!)));
  const fixedWidth = (values: string[][]) =>
    columns.reduce((sum, column, index) => (column.flex ? sum : sum + widthOf(index, values) + GAP.length), 0);

  const shortenedIds = columns.some((column) => column.flex) && layout.width - fixedWidth(cells) < MIN_FLEX &&
    columns.some((column, index) => column.id && widthOf(index, cells) > SHORT_ID + 1);
  const shown = shortenedIds
    ? cells.map((row) => row.map((cell, index) => (columns[index]!.id ? shortId(cell) : cell)))
    : cells;
  const flexWidth = Math.max(10, layout.width - fixedWidth(shown));
  const widths = columns.map((column, index) => (column.flex ? flexWidth : widthOf(index, shown)));

  const line = (row: string[], decorate: (text: string, index: number) => string) =>
    row
      .map((cell, index) => {
        const text = truncate(cell, widths[index]!);
        const padded = index === row.length - 1 ? text : text.padEnd(widths[index]! + text.length - textWidth(text));
        return decorate(padded, index);
      })
      .join(GAP)
      .trimEnd();
  const header = line(columns.map((column) => column.header), (text) => style.bold(text));
  const body = shown.map((row) =>
    line(row, (text, index) => {
      const tone = columns[index]!.status ? STATUS_STYLE[text.trim()] : undefined;
      return tone ? style[tone](text) : text;
    }),
  );
  return { text: `${[header, ...body].join('\n')}\n`, shortenedIds };
}

function shortId(id: string): string {
  return textWidth(id) > SHORT_ID + 1 ? `…${id.slice(-SHORT_ID)}` : id;
}
