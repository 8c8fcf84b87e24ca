// Parser for `tc -s -j qdisc show dev DEV`: the bottleneck queue's backlog
// (bytes and packets waiting), drops and totals. Sampled every 0.5 s it shows
// how full the drop-tail queue is (testbed.md: at 256 KB the queue is nearly
// always full, ~650 ms of queueing delay at 3 Mbit/s).

export interface QdiscSample {
  /** Sample time, seconds since the epoch. */
  readonly t: number;
  readonly dev: string;
  /** Qdisc kind, e.g. "tbf". */
  readonly qdisc: string;
  /** Bytes waiting in the queue. */
  readonly backlogBytes: number;
  /** Packets waiting in the queue. */
  readonly backlogPackets: number;
  /** Packets dropped since the qdisc was created. */
  readonly drops: number;
  /** Bytes and packets sent since the qdisc was created. */
  readonly sentBytes: number;
  readonly sentPackets: number;
  readonly overlimits: number;
}

/** Parses the JSON of `tc -s -j qdisc show dev DEV`; takes the root qdisc. */
export function parseQdiscJson(text: string, t: number, dev: string): QdiscSample {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (err) {
    throw new Error(`tc qdisc show dev ${dev}: output is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(list) || list.length === 0) throw new Error(`tc qdisc show dev ${dev}: no qdisc found`);
  const root = (list.find((q) => (q as { root?: boolean }).root) ?? list[0]) as Record<string, unknown>;
  const num = (key: string): number => {
    const v = root[key];
    if (typeof v !== 'number') throw new Error(`tc qdisc show dev ${dev}: field "${key}" missing or not a number`);
    return v;
  };
  return {
    t,
    dev,
    qdisc: String(root['kind']),
    backlogBytes: num('backlog'),
    backlogPackets: num('qlen'),
    drops: num('drops'),
    sentBytes: num('bytes'),
    sentPackets: num('packets'),
    overlimits: num('overlimits'),
  };
}
