// The progress of an import on a terminal (stderr only, and only when it is a TTY: piped output
// and logs stay clean): the share of the file read, rows/s and the time left, then each phase.
const WIDTH = 24;
const REDRAW_MS = 200;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--:--';
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, '0')}`;
}

export type Progress = {
  /** Bytes read so far (the file reader adds to it). */
  counter: { bytes: number };
  /** Adds rows read. */
  rows: (count: number) => void;
  phase: (text: string) => void;
  done: () => void;
  /** Counts a row refused into the rejects file (the console shows it as the import runs). */
  refused?: () => void;
};

export function progressBar(totalBytes: number, enabled = process.stderr.isTTY === true): Progress {
  const counter = { bytes: 0 };
  const started = Date.now();
  let rows = 0;
  let drawn = 0;
  const write = (text: string) => enabled && process.stderr.write(`\r\x1b[K${text}`);
  const draw = () => {
    const share = totalBytes ? Math.min(1, counter.bytes / totalBytes) : 1;
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? rows / seconds : 0;
    const left = share > 0 ? (seconds / share) * (1 - share) : Infinity;
    const filled = Math.round(share * WIDTH);
    write(
      `[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.round(share * 100)}% ` +
        `${rows.toLocaleString('en')} rows, ${Math.round(rate).toLocaleString('en')} rows/s, ETA ${duration(left)}`,
    );
  };
  return {
    counter,
    rows: (count) => {
      const before = rows;
      rows += count;
      // Redrawn at most every 1,024 rows (and REDRAW_MS).
      if (!enabled || before >> 10 === rows >> 10) return;
      const now = Date.now();
      if (now - drawn < REDRAW_MS) return;
      drawn = now;
      draw();
    },
    phase: (text) => {
      if (counter.bytes > 0 && drawn !== -1) {
        draw();
        if (enabled) process.stderr.write('\n');
        drawn = -1;
      }
      write(`${text} (${duration((Date.now() - started) / 1000)} so far)`);
    },
    done: () => enabled && process.stderr.write('\r\x1b[K'),
  };
}

/** Seconds spent in each phase of an import (the summary's `phases`): where an import's time goes. */
export function phaseClock() {
  const phases: Record<string, number> = {};
  let since = performance.now();
  return {
    phases,
    /** Ends the current phase: its time goes to `name` (added up when a name comes back). */
    lap: (name: string) => {
      const now = performance.now();
      phases[name] = Math.round(((phases[name] ?? 0) + (now - since) / 1000) * 1000) / 1000;
      since = now;
    },
  };
}
