// What a testbed flow client writes (flow-client.ts, pipelined-flow.ts): a
// start record, the bytes it received in time bins (bins.ts), one record per
// request, and a stop record with the total, as JSON lines.

import { Bin, Binner } from './bins';
import { JsonlWriter } from './jsonl';

/** Record types written to a flow's output file. */
export type FlowRecord =
  | { kind: 'bin'; label: string; t: number; binMs: number; bytes: number }
  | { kind: 'request'; label: string; t0: number; t1: number; bytes: number; status: number | null; complete: boolean; error?: string }
  | { kind: 'start' | 'stop'; label: string; t: number; host: string; port: number; path: string; bytes?: number };

export interface FlowLogTarget {
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly out: string;
  readonly label: string;
  /** Bin width, milliseconds (default 100). */
  readonly binMs?: number;
}

export class FlowLog {
  private readonly out: JsonlWriter;
  private readonly binner: Binner;
  private readonly binTimer: ReturnType<typeof setInterval>;
  /** Body bytes received so far. */
  total = 0;
  readonly startMs = Date.now();

  constructor(private readonly target: FlowLogTarget) {
    this.out = new JsonlWriter(target.out);
    const binMs = target.binMs ?? 100;
    this.binner = new Binner(binMs, (bin: Bin) => {
      this.out.write({ kind: 'bin', label: target.label, t: bin.startMs / 1000, binMs, bytes: bin.flows.get(target.label)?.bytes ?? 0 });
    });
    this.out.write({ kind: 'start', label: target.label, t: this.startMs / 1000, host: target.host, port: target.port, path: target.path });
    this.binner.start(this.startMs);
    this.binTimer = setInterval(() => this.binner.advance(Date.now()), binMs);
  }

  /** Body bytes received now. */
  received(bytes: number): void {
    this.total += bytes;
    this.binner.add(this.target.label, Date.now(), bytes);
  }

  request(r: { t0Ms: number; bytes: number; status: number | null; complete: boolean; error?: string }): void {
    const { t0Ms, ...rest } = r;
    this.out.write({ kind: 'request', label: this.target.label, t0: t0Ms / 1000, t1: Date.now() / 1000, ...rest });
  }

  async close(): Promise<void> {
    clearInterval(this.binTimer);
    const endMs = Date.now();
    this.binner.finish(endMs);
    const t = this.target;
    this.out.write({ kind: 'stop', label: t.label, t: endMs / 1000, host: t.host, port: t.port, path: t.path, bytes: this.total });
    await this.out.close();
  }
}
