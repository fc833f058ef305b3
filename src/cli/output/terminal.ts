/** Where a command prints: data to `out` (stdout), messages to `err` (stderr), and what stdout can show. */
export interface Terminal {
  /** stdout is a terminal: print tables rather than JSON. */
  isTTY: boolean;
  /** Width of stdout in columns. */
  columns: number;
  /** ANSI colour allowed on stdout. */
  color: boolean;
  out(text: string): void;
  err(text: string): void;
}

/**
 * True unless `NO_COLOR` is set to anything non-empty (no-color.org) or the terminal is `dumb`; the caller also
 * needs a TTY.
 */
export function colorAllowed(env: NodeJS.ProcessEnv): boolean {
  return (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
}

/** The terminal of this process. */
export function processTerminal(): Terminal {
  const isTTY = process.stdout.isTTY === true;
  return {
    isTTY,
    columns: process.stdout.columns || 80,
    color: isTTY && colorAllowed(process.env),
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
}

export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const ESC = '\u001b[';

/** ANSI styles, or identity functions when colour is off. */
export function styles(color: boolean): Styles {
  const wrap = (open: number, close: number) => (text: string) =>
    color && text !== '' ? `${ESC}${open}m${text}${ESC}${close}m` : text;
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), yellow: wrap(33, 39) };
}

/**
 * Text from the core made safe for one terminal cell: control characters (which could move the cursor or change
 * colours) dropped, whitespace runs collapsed to one space.
 */
export function cleanCell(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Cuts text to `width` characters, ending in an ellipsis when cut. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/** Length in characters (code points), which is what the table pads by. */
export function textWidth(text: string): number {
  return [...text].length;
}
