// Turns the wire capture's JSON lines (capture.ts) into a FlowSeries
// (metrics.ts): one bytes-per-bin array per server port, zero-filled, over
// the whole capture. Also reads the receiver-side bins of the flow clients
// (flow-client.ts) into the same shape, for cross-checks.

import { readJsonl } from './jsonl';
import { FlowSeries } from './metrics';

export interface WireRecord {
  readonly kind: 'wire';
  readonly t: number;
  readonly binMs: number;
  readonly flows: Readonly<Record<string, { bytes: number; wireBytes: number; packets: number }>>;
}

/** Which count to use: TCP payload bytes (default) or bytes on the wire with headers. */
export type ByteField = 'bytes' | 'wireBytes';

/** Builds a series from wire records (in any order; gaps are zero-filled). */
export function seriesFromWireRecords(records: readonly WireRecord[], field: ByteField = 'bytes'): FlowSeries {
  const wire = records.filter((r) => r.kind === 'wire');
  if (wire.length === 0) return { t0S: 0, binS: 0.1, bytes: {} };
  const binMs = (wire[0] as WireRecord).binMs;
  for (const r of wire) {
    if (r.binMs !== binMs) throw new Error(`wire records mix bin widths ${binMs} ms and ${r.binMs} ms`);
  }
  const binS = binMs / 1000;
  const t0S = Math.min(...wire.map((r) => r.t));
  const tEnd = Math.max(...wire.map((r) => r.t));
  const n = Math.round((tEnd - t0S) / binS) + 1;
  const bytes: Record<string, number[]> = {};
  for (const r of wire) {
    const i = Math.round((r.t - t0S) / binS);
    for (const [port, c] of Object.entries(r.flows)) {
      const arr = (bytes[port] ??= new Array<number>(n).fill(0));
      arr[i] = (arr[i] as number) + c[field];
    }
  }
  return { t0S, binS, bytes };
}

/** Reads a capture file written by WireCapture. */
export function readWireSeries(path: string, field: ByteField = 'bytes'): FlowSeries {
  return seriesFromWireRecords(
    readJsonl<WireRecord>(path).filter((r) => r.kind === 'wire'),
    field,
  );
}

interface ClientBinRecord {
  readonly kind: 'bin';
  readonly label: string;
  readonly t: number;
  readonly binMs: number;
  readonly bytes: number;
}

/** Reads receiver-side bins from flow-client files into one series keyed by label. */
export function readClientSeries(paths: readonly string[]): FlowSeries {
  const records = paths.flatMap((p) => readJsonl<ClientBinRecord>(p).filter((r) => r.kind === 'bin'));
  const asWire: WireRecord[] = records.map((r) => ({
    kind: 'wire',
    t: r.t,
    binMs: r.binMs,
    flows: { [r.label]: { bytes: r.bytes, wireBytes: 0, packets: 0 } },
  }));
  return seriesFromWireRecords(asWire, 'bytes');
}
