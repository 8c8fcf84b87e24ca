// Bulk download client for the testbed (paper §V-A: the competing bulk flow).
// Runs inside the client namespace (`ip netns exec <clientNs> node
// dist/demo/testbed/bulk-client.js ...`), GETs /bulk?bytes=<huge> from the
// origin, counts received bytes into 100 ms bins written as JSON lines, and
// re-issues the download if it ever finishes early, until --duration seconds.
//
// Usage: node dist/demo/testbed/bulk-client.js --host 10.201.1.2 --port 8002
//          --duration 60 --out results/bulk0.jsonl [--label bulk0]
//          [--bytes 100000000000] [--bin-ms 100]

import { numberOption, parseOptions, required, UsageError } from './cli-args';
import { runFlowCli } from './flow-client';
import { runMain } from '../../src/cli/run-main';

/** Body size asked for: large enough that a download never ends within a run at testbed rates. */
export const DEFAULT_BULK_BYTES = 100_000_000_000;

export async function main(argv: string[]): Promise<number> {
  try {
    const v = parseOptions(argv, ['host', 'port', 'duration', 'out', 'label', 'bytes', 'bin-ms']);
    const bytes = numberOption(v, 'bytes', DEFAULT_BULK_BYTES);
    const port = numberOption(v, 'port');
    return await runFlowCli({
      host: required(v, 'host'),
      port,
      path: `/bulk?bytes=${Math.round(bytes)}`,
      durationS: numberOption(v, 'duration'),
      out: required(v, 'out'),
      label: v['label'] ?? `bulk-${port}`,
      binMs: numberOption(v, 'bin-ms', 100),
    });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(
        `bulk-client: ${err.message}\nusage: bulk-client --host H --port P --duration S --out FILE [--label L] [--bytes N] [--bin-ms MS]\n`,
      );
      return 2;
    }
    throw err;
  }
}

runMain(module, 'bulk-client', main, { exit: 'now' });
