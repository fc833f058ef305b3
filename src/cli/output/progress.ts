/** Where a progress bar draws: a terminal's stderr. */
export interface ProgressSink {
  isTTY: boolean;
  columns: number;
  write(text: string): void;
}

const REDRAW_MS = 100;
const MB = 1024 * 1024;

function size(bytes: number): string {
  return bytes >= MB ? `${(bytes / MB).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/**
 * A one-line progress bar for work of known size (bytes by default; `unit` formats other counts), redrawn in place
 * at most ten times a second. On anything but a terminal it draws nothing, so logs and pipes stay clean.
 */
export class ProgressBar {
  private done = 0;
  private drawnAt = 0;

  constructor(
    private readonly sink: ProgressSink,
    private readonly label: string,
    private readonly total: number,
    private readonly now: () => number = Date.now,
    private readonly unit: (amount: number) => string = size,
  ) {}

  /** Counts `amount` more as done. */
  advance(amount: number): void {
    this.done += amount;
    if (this.now() - this.drawnAt >= REDRAW_MS) this.draw();
  }

  /** Clears the line, leaving the terminal as it was. */
  finish(): void {
    if (this.sink.isTTY) this.sink.write('\r\u001b[2K');
  }

  private draw(): void {
    if (!this.sink.isTTY) return;
    this.drawnAt = this.now();
    const share = this.total === 0 ? 1 : Math.min(1, this.done / this.total);
    const figures = `${String(Math.floor(share * 100)).padStart(3)}% ${this.unit(this.done)}/${this.unit(this.total)}`;
    const width = Math.max(10, Math.min(40, this.sink.columns - this.label.length - figures.length - 6));
    const filled = Math.round(share * width);
    this.sink.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${figures}`);
  }
}
