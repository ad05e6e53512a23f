/**
 * Progress on stderr: a redrawn bar on a terminal, and on anything else
 * (CI logs, pipes) a plain line every 10% or 5 seconds, whichever is first.
 */
export class Progress {
  private readonly started = performance.now();
  private lastDraw = 0;
  private lastLine = 0;
  private lastTenth = -1;
  private drawn = false;

  constructor(
    private readonly label: string,
    /** 0 when unknown (a pipe): the line then counts up, without a gauge or time left. */
    private readonly total: number,
    private readonly unit: 'events' | 'bytes',
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, note = ''): void {
    const now = performance.now();
    if (this.stream.isTTY) {
      if (now - this.lastDraw < 100 && (this.total === 0 || done < this.total)) return;
      this.lastDraw = now;
      // Too wide for the terminal, the gauge gives way first: how far it is stays in view.
      const columns = this.stream.columns;
      let line = this.render(done, note, now);
      if (fitRow(line, columns) !== line) line = this.render(done, note, now, false);
      redrawRow(this.stream, line, columns);
      this.drawn = true;
      return;
    }
    const tenth = this.total > 0 ? Math.floor((done / this.total) * 10) : 0;
    if (tenth > this.lastTenth || now - this.lastLine >= 5000) {
      this.lastTenth = tenth;
      this.lastLine = now;
      this.stream.write(`${this.render(done, note, now, false)}\n`);
    }
  }

  /** Seconds since the start. */
  elapsed(): number {
    return (performance.now() - this.started) / 1000;
  }

  /** Ends the bar's line so what follows starts clean. */
  finish(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private render(done: number, note: string, now: number, bar = true): string {
    const seconds = (now - this.started) / 1000;
    if (this.total === 0) {
      const amount =
        this.unit === 'bytes' ? `${formatBytes(done)} read` : formatCount(done, 'event');
      return `${this.label} ${amount}${note ? `, ${note}` : ''}, ${formatDuration(seconds)}`;
    }
    const fraction = Math.min(1, done / this.total);
    const width = 28;
    const filled = Math.round(fraction * width);
    const gauge = bar ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
    const amount =
      this.unit === 'bytes'
        ? `${formatBytes(done)} / ${formatBytes(this.total)}`
        : `${formatNumber(done)} / ${formatNumber(this.total)} events`;
    const eta =
      fraction > 0 && fraction < 1
        ? `, ${formatDuration((seconds / fraction) * (1 - fraction))} left`
        : '';
    return `${this.label} ${gauge}${(fraction * 100).toFixed(0).padStart(3)}% ${amount}${note ? `, ${note}` : ''}${eta}`;
  }
}

/** `line` cut to one row of a terminal `columns` wide (unknown: whole), its last column left to the cursor. */
function fitRow(line: string, columns: number | undefined): string {
  return columns !== undefined && columns > 1 && line.length >= columns
    ? line.slice(0, columns - 1)
    : line;
}

/**
 * Draws `line` over the terminal row the cursor is on, cut to `columns`
 * (fitRow): a line that wrapped was redrawn from its last row only (\r), its
 * first rows left behind at every redraw.
 */
export function redrawRow(
  stream: Pick<NodeJS.WriteStream, 'write'>,
  line: string,
  columns: number | undefined,
): void {
  stream.write(`\r${fitRow(line, columns)}\u001b[K`);
}

export function formatNumber(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** "1 event", "2,000 events": a count with its noun, singular for one. */
export function formatCount(n: number, noun: string): string {
  return `${formatNumber(n)} ${Math.round(n) === 1 ? noun : `${noun}s`}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Seconds as every command's --json gives them: to the millisecond. */
export function jsonSeconds(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds % 60)} s`;
}
