// Sequential segment client for the testbed: downloads fixed-size segments of
// the origin's bulk resource one request at a time, with no pauses, over one
// keep-alive connection — the "sequential" video-like client of
// docs/testbed.md (1.25 MB segments), the baseline that paper §III
// shows losing its fair share to a bulk flow. Bytes are counted into 100 ms
// bins and every request is logged, as JSON lines.
//
// Usage: node dist/demo/testbed/segment-client.js --host 10.201.1.2 --port 8001
//          --duration 60 --out results/seq.jsonl [--segment-bytes 1250000]
//          [--label seq] [--bin-ms 100] [--pipeline 1]
// --pipeline N > 1 keeps N requests outstanding on the connection (HTTP/1.1
// pipelining, pipelined-flow.ts) instead of one at a time.

import { numberOption, parseOptions, required, UsageError } from './cli-args';
import { runFlowCli } from './flow-client';
import { runMain } from '../../src/cli/run-main';

/** testbed.md's segment size: 1.25 MB. */
export const DEFAULT_SEGMENT_BYTES = 1_250_000;

export async function main(argv: string[]): Promise<number> {
  try {
    const v = parseOptions(argv, ['host', 'port', 'duration', 'out', 'label', 'segment-bytes', 'bin-ms', 'pipeline']);
    const port = numberOption(v, 'port');
    const segment = numberOption(v, 'segment-bytes', DEFAULT_SEGMENT_BYTES);
    return await runFlowCli({
      host: required(v, 'host'),
      port,
      path: `/bulk?bytes=${Math.round(segment)}`,
      durationS: numberOption(v, 'duration'),
      out: required(v, 'out'),
      label: v['label'] ?? `seq-${port}`,
      binMs: numberOption(v, 'bin-ms', 100),
      pipeline: numberOption(v, 'pipeline', 1),
    });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(
        `segment-client: ${err.message}\nusage: segment-client --host H --port P --duration S --out FILE [--label L] [--segment-bytes N] [--bin-ms MS] [--pipeline N]\n`,
      );
      return 2;
    }
    throw err;
  }
}

runMain(module, 'segment-client', main, { exit: 'now' });
