// Evaluation metrics over per-flow byte bins (paper §V-A): each flow's
// throughput over time, the fair share (total measured throughput of all
// flows ÷ number of active flows) over a measurement window that starts after
// a warm-up, each flow's percentage of that fair share, unfairness √(1 − JFI)
// between a set of flows (Jain's fairness index), and median/min/max over
// repeated runs.
//
// Times are seconds since the epoch; throughputs bits per second. Pure
// functions, no I/O; bad input throws an Error saying what is wrong.

/** Bytes per flow in consecutive equal bins starting at t0S. Every flow's array has the same length. */
export interface FlowSeries {
  /** Start of bin 0, seconds since the epoch. */
  readonly t0S: number;
  /** Bin width, seconds. */
  readonly binS: number;
  /** Bytes per bin, per flow id (e.g. the server port as a string). */
  readonly bytes: Readonly<Record<string, readonly number[]>>;
}

export interface Window {
  /** Inclusive start, seconds since the epoch. */
  readonly fromS: number;
  /** Exclusive end, seconds since the epoch. */
  readonly toS: number;
}

export interface FlowShare {
  /** Mean throughput over the window, bits per second. */
  readonly bitsPerSec: number;
  /** This flow's throughput as a percentage of the fair share (100 = exactly fair). */
  readonly percentOfFairShare: number;
}

export interface FairShareResult {
  readonly window: Window;
  /** Length of the bins actually counted, seconds. */
  readonly durationS: number;
  /** Flows that moved any bytes inside the window. */
  readonly activeFlows: readonly string[];
  /** Sum of all flows' throughput, bits per second. */
  readonly totalBitsPerSec: number;
  /** totalBitsPerSec ÷ number of active flows. */
  readonly fairShareBitsPerSec: number;
  readonly flows: Readonly<Record<string, FlowShare>>;
}

function requireSeries(series: FlowSeries): number {
  if (!(series.binS > 0)) throw new Error(`flow series: bin width must be positive, got ${series.binS}`);
  let length: number | null = null;
  for (const [id, arr] of Object.entries(series.bytes)) {
    if (length === null) length = arr.length;
    else if (arr.length !== length) throw new Error(`flow series: flow "${id}" has ${arr.length} bins, others ${length}`);
  }
  return length ?? 0;
}

function flowBins(series: FlowSeries, flow: string): readonly number[] {
  const arr = series.bytes[flow];
  if (!arr) throw new Error(`flow series: no flow "${flow}" (flows: ${Object.keys(series.bytes).join(', ') || 'none'})`);
  return arr;
}

/** Bin indices [first, last) lying entirely inside the window. */
function binRange(series: FlowSeries, window: Window): [number, number] {
  if (!(window.toS > window.fromS)) throw new Error(`window [${window.fromS}, ${window.toS}) is empty`);
  const n = requireSeries(series);
  const eps = 1e-9;
  const first = Math.max(0, Math.ceil((window.fromS - series.t0S) / series.binS - eps));
  const last = Math.min(n, Math.floor((window.toS - series.t0S) / series.binS + eps));
  return [first, Math.max(first, last)];
}

/** One flow's throughput per bin: [{ tS: bin start, bitsPerSec }]. */
export function throughputSeries(series: FlowSeries, flow: string): { tS: number; bitsPerSec: number }[] {
  return flowBins(series, flow).map((b, i) => ({ tS: series.t0S + i * series.binS, bitsPerSec: (b * 8) / series.binS }));
}

/** Throughput per bin averaged over `smoothS` seconds (non-overlapping), for plots. */
export function smoothedThroughput(series: FlowSeries, flow: string, smoothS: number): { tS: number; bitsPerSec: number }[] {
  const per = Math.max(1, Math.round(smoothS / series.binS));
  const bins = flowBins(series, flow);
  const out: { tS: number; bitsPerSec: number }[] = [];
  for (let i = 0; i + per <= bins.length; i += per) {
    let sum = 0;
    for (let j = i; j < i + per; j++) sum += bins[j] as number;
    out.push({ tS: series.t0S + i * series.binS, bitsPerSec: (sum * 8) / (per * series.binS) });
  }
  return out;
}

/** Bytes a flow moved inside the window. */
export function bytesInWindow(series: FlowSeries, flow: string, window: Window): number {
  const [a, b] = binRange(series, window);
  const bins = flowBins(series, flow);
  let sum = 0;
  for (let i = a; i < b; i++) sum += bins[i] as number;
  return sum;
}

/** Start time of a flow's first non-empty bin, or null if it never moved a byte. */
export function firstActiveS(series: FlowSeries, flow: string): number | null {
  const i = flowBins(series, flow).findIndex((b) => b > 0);
  return i < 0 ? null : series.t0S + i * series.binS;
}

/** End time of a flow's last non-empty bin, or null if it never moved a byte. */
export function lastActiveEndS(series: FlowSeries, flow: string): number | null {
  const bins = flowBins(series, flow);
  for (let i = bins.length - 1; i >= 0; i--) if ((bins[i] as number) > 0) return series.t0S + (i + 1) * series.binS;
  return null;
}

/** When the flows meet: the latest of their first active bins (null if one never started). */
export function meetTimeS(series: FlowSeries, flows: readonly string[]): number | null {
  let meet = -Infinity;
  for (const f of flows) {
    const t = firstActiveS(series, f);
    if (t === null) return null;
    meet = Math.max(meet, t);
  }
  return flows.length === 0 ? null : meet;
}

/**
 * The measurement window: from `warmupS` after the flows meet to `endS`
 * (default: end of the series). testbed.md: the first 60–90 s after the flows
 * meet sit near 100% and must be discarded.
 */
export function measurementWindow(series: FlowSeries, flows: readonly string[], warmupS: number, endS?: number): Window {
  if (!(warmupS >= 0)) throw new Error(`warm-up must be >= 0 s, got ${warmupS}`);
  const meet = meetTimeS(series, flows);
  if (meet === null) throw new Error(`flows ${flows.join(', ')} never all carried traffic: no measurement window`);
  const end = endS ?? series.t0S + requireSeries(series) * series.binS;
  const from = meet + warmupS;
  if (!(end > from))
    throw new Error(
      `measurement window is empty: flows meet at ${meet.toFixed(1)} s, warm-up ${warmupS} s, series ends at ${end.toFixed(1)} s`,
    );
  return { fromS: from, toS: end };
}

/**
 * Paper §V-A fair share over a window: total throughput of `flows` (default
 * all flows in the series) ÷ the number of them that moved any bytes in the
 * window, and each flow's percentage of it.
 */
export function fairShare(series: FlowSeries, window: Window, flows?: readonly string[]): FairShareResult {
  const ids = flows ?? Object.keys(series.bytes);
  if (ids.length === 0) throw new Error('fair share: no flows');
  const [a, b] = binRange(series, window);
  const durationS = (b - a) * series.binS;
  if (durationS <= 0) throw new Error(`fair share: window [${window.fromS}, ${window.toS}) holds no whole bin of the series`);
  const rates: Record<string, number> = {};
  let total = 0;
  for (const id of ids) {
    const r = (bytesInWindow(series, id, window) * 8) / durationS;
    rates[id] = r;
    total += r;
  }
  const active = ids.filter((id) => (rates[id] as number) > 0);
  const fair = active.length > 0 ? total / active.length : 0;
  const out: Record<string, FlowShare> = {};
  for (const id of ids) {
    const r = rates[id] as number;
    out[id] = { bitsPerSec: r, percentOfFairShare: fair > 0 ? (100 * r) / fair : 0 };
  }
  return { window, durationS, activeFlows: active, totalBitsPerSec: total, fairShareBitsPerSec: fair, flows: out };
}

/** Jain's fairness index (Σx)² / (n·Σx²); 1 = all equal. All-zero input counts as equal (1). */
export function jainIndex(values: readonly number[]): number {
  if (values.length === 0) throw new Error('Jain index of no values');
  let sum = 0;
  let sumSq = 0;
  for (const v of values) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`Jain index: values must be finite and >= 0, got ${v}`);
    sum += v;
    sumSq += v * v;
  }
  if (sumSq === 0) return 1;
  return (sum * sum) / (values.length * sumSq);
}

/** Paper §V: unfairness between flows = √(1 − JFI); 0 = perfectly fair. */
export function unfairness(values: readonly number[]): number {
  return Math.sqrt(Math.max(0, 1 - jainIndex(values)));
}

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median (mean of the middle two for even n), min and max over repeats. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('summary of no values');
  for (const v of values) if (!Number.isFinite(v)) throw new Error(`summary: not a finite number: ${v}`);
  const s = [...values].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  return { n: s.length, median, min: s[0] as number, max: s[s.length - 1] as number };
}
