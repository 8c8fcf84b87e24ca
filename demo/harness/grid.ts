// Network conditions of an evaluation: one bottleneck, or a sweep over rates ×
// queue sizes like paper Fig. 6 (1.5–25 Mbit/s × 64–1536 KB). Written either
// as `--rate 3mbit --queue 256kb,512kb` (comma lists are crossed) or as
// `--grid rate=1.5mbit,3mbit queue=64kb,256kb` (the two items may also be
// separated by ";"). Rates are decimal (tc's mbit), sizes binary (256kb =
// 262144 bytes). Pure; bad input throws a UsageError naming the option.

import { UsageError } from '../../src/cli/args';
import { parseBitsPerSecond, parseBytes } from '../../src/units';
import { Condition, conditionKey } from './plan';

export interface GridAxes {
  readonly rates: readonly number[];
  readonly queues: readonly number[];
}

/** Limits that keep a run meaningful on one machine (tbf at tens of Mbit/s is fine; Gbit/s is not the point). */
export const RATE_LIMITS = { min: 64_000, max: 1_000_000_000 } as const;
export const QUEUE_LIMITS = { min: 1514, max: 64 * 1024 * 1024 } as const;

function list(text: string, name: string): string[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 0 || items.some((s) => s === '')) throw new UsageError(`${name}: ${JSON.stringify(text)} has an empty entry`);
  return items;
}

function wrap<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
}

/** "1.5mbit,3mbit" → [1500000, 3000000]. */
export function parseRates(text: string, name = '--rate'): number[] {
  return list(text, name).map((t) => {
    const v = wrap(() => parseBitsPerSecond(t, { name }));
    if (v < RATE_LIMITS.min || v > RATE_LIMITS.max)
      throw new UsageError(`${name}: ${t} is outside ${RATE_LIMITS.min / 1000} kbit – ${RATE_LIMITS.max / 1e9} gbit`);
    return Math.round(v);
  });
}

/** "64kb,256kb" → [65536, 262144]. */
export function parseQueues(text: string, name = '--queue'): number[] {
  return list(text, name).map((t) => {
    const v = wrap(() => parseBytes(t, { name }));
    if (v < QUEUE_LIMITS.min || v > QUEUE_LIMITS.max)
      throw new UsageError(`${name}: ${t} is outside ${QUEUE_LIMITS.min} bytes (one packet) – 64mb`);
    return v;
  });
}

/** "rate=1.5mbit,3mbit queue=64kb,256kb" (or ";" between the items). */
export function parseGrid(text: string): GridAxes {
  const items = text.split(/[\s;]+/).filter(Boolean);
  let rates: number[] | null = null;
  let queues: number[] | null = null;
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    if (key === 'rate') {
      if (rates) throw new UsageError('--grid: rate= given twice');
      rates = parseRates(value, '--grid rate');
    } else if (key === 'queue') {
      if (queues) throw new UsageError('--grid: queue= given twice');
      queues = parseQueues(value, '--grid queue');
    } else {
      throw new UsageError(`--grid: unknown axis ${JSON.stringify(key)} in ${JSON.stringify(text)}; axes are rate=… and queue=…`);
    }
  }
  if (!rates && !queues) throw new UsageError(`--grid: ${JSON.stringify(text)} names no axis (e.g. rate=1.5mbit,3mbit queue=64kb,256kb)`);
  return { rates: rates ?? [], queues: queues ?? [] };
}

/** Every rate × queue, rates outer, both in the order given; duplicates refused. */
export function crossConditions(rates: readonly number[], queues: readonly number[]): Condition[] {
  const out: Condition[] = [];
  for (const rate of rates) {
    for (const queue of queues) {
      const key = conditionKey(rate, queue);
      if (out.some((c) => c.key === key)) throw new UsageError(`the condition ${key} is listed twice`);
      out.push({ key, rateBitsPerSec: rate, queueBytes: queue });
    }
  }
  return out;
}

/**
 * Joins a `--grid` value split over several shell words back into one:
 * `--grid rate=1,2 queue=3,4` arrives as three argv entries.
 */
export function joinGridWords(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    out.push(arg);
    if (arg === '--grid' && i + 1 < argv.length) {
      const words = [argv[++i] as string];
      while (i + 1 < argv.length && /^(rate|queue)=/.test(argv[i + 1] as string)) words.push(argv[++i] as string);
      out.push(words.join(' '));
    }
  }
  return out;
}
