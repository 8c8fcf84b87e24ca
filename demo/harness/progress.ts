// Progress of an A/B evaluation on stderr: a bar with the run in progress,
// elapsed time and an ETA. On a terminal it is one line redrawn in place
// (other messages are printed above it); otherwise (CI logs, files) a line at
// every run start and end and once a minute in between. The ETA is the
// remaining scheduled time plus, per remaining run, the mean set-up and
// tear-down overhead measured so far (15 s until the first run has ended).

import { clock } from './format';

export const INITIAL_OVERHEAD_S = 15;
export const NON_TTY_INTERVAL_S = 60;

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressState {
  /** Scheduled seconds of every run, in plan order. */
  readonly scheduleS: readonly number[];
  /** Runs finished so far. */
  readonly done: number;
  /** Scheduled seconds into the current run. */
  readonly currentElapsedS: number;
  /** Mean overhead per run so far (wall time − scheduled time), seconds. */
  readonly overheadS: number;
  readonly elapsedS: number;
}

/** Seconds left: the current run's rest, the later runs, and overhead for each run not finished. */
export function etaSeconds(s: ProgressState): number {
  const n = s.scheduleS.length;
  if (s.done >= n) return 0;
  let left = Math.max(0, (s.scheduleS[s.done] ?? 0) - s.currentElapsedS);
  for (let i = s.done + 1; i < n; i++) left += s.scheduleS[i] as number;
  return left + (n - s.done) * s.overheadS;
}

/** Fraction done, by scheduled time plus overhead. */
export function fractionDone(s: ProgressState): number {
  const total = s.scheduleS.reduce((a, b) => a + b, 0) + s.scheduleS.length * s.overheadS;
  if (total <= 0) return 1;
  return Math.max(0, Math.min(1, 1 - etaSeconds(s) / total));
}

export function progressLine(s: ProgressState, label: string, width = 24): string {
  const f = fractionDone(s);
  const filled = Math.round(f * width);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const run = Math.min(s.done + 1, s.scheduleS.length);
  const cur = s.scheduleS[s.done];
  const inRun = cur === undefined ? '' : ` ${clock(s.currentElapsedS)}/${clock(cur)}`;
  return `[${bar}] ${(f * 100).toFixed(0).padStart(3)}% run ${run}/${s.scheduleS.length} ${label}${inRun} | elapsed ${clock(s.elapsedS)} | ETA ${clock(etaSeconds(s))}`;
}

export class Progress {
  private done = 0;
  private currentElapsedS = 0;
  private label = '';
  private overheads: number[] = [];
  private runStartMs = 0;
  private lastPrintMs = 0;
  private barShown = false;
  private readonly startMs: number;

  constructor(
    private readonly scheduleS: readonly number[],
    private readonly stream: ProgressStream,
    private readonly now: () => number = Date.now,
  ) {
    this.startMs = now();
  }

  private state(): ProgressState {
    const overheadS = this.overheads.length > 0 ? this.overheads.reduce((a, b) => a + b, 0) / this.overheads.length : INITIAL_OVERHEAD_S;
    return {
      scheduleS: this.scheduleS,
      done: this.done,
      currentElapsedS: this.currentElapsedS,
      overheadS,
      elapsedS: (this.now() - this.startMs) / 1000,
    };
  }

  private draw(force: boolean): void {
    let line = progressLine(this.state(), this.label);
    if (this.stream.isTTY) {
      const cols = this.stream.columns ?? 120;
      if (line.length > cols - 1) line = line.slice(0, cols - 1);
      this.stream.write(`\r${line}\x1b[K`);
      this.barShown = true;
    } else if (force || this.now() - this.lastPrintMs >= NON_TTY_INTERVAL_S * 1000) {
      this.stream.write(`${line}\n`);
      this.lastPrintMs = this.now();
    }
  }

  /** Prints a message line (above the bar on a terminal). */
  message(text: string): void {
    if (this.stream.isTTY && this.barShown) this.stream.write('\r\x1b[K');
    this.stream.write(`${text}\n`);
    if (this.stream.isTTY && this.barShown) this.draw(true);
  }

  startRun(label: string): void {
    this.label = label;
    this.currentElapsedS = 0;
    this.runStartMs = this.now();
    this.draw(true);
  }

  /** Scheduled seconds into the current run (called about once a second). */
  tick(elapsedS: number): void {
    this.currentElapsedS = elapsedS;
    this.draw(false);
  }

  endRun(): void {
    const wallS = (this.now() - this.runStartMs) / 1000;
    const scheduled = this.scheduleS[this.done] ?? 0;
    this.overheads.push(Math.max(0, wallS - scheduled));
    this.done++;
    this.currentElapsedS = 0;
  }

  /** Leaves the terminal on a fresh line. */
  finish(): void {
    if (this.stream.isTTY && this.barShown) this.stream.write('\r\x1b[K');
    this.barShown = false;
  }
}
