// `sprint compact DIR...`: stores the raw run files of results folders
// compressed (compact.ts); every reader takes them either way.

import { existsSync, statSync } from 'fs';
import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { runMain } from '../../src/cli/run-main';
import { compactFolder } from './compact';

const SPEC: OptionsSpec = {
  'dry-run': { kind: 'flag', short: 'n' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint compact DIR... [--dry-run]

Compresses every raw run file (*.jsonl, *.log, *.pcap) under each results
folder to NAME.gz, checking that it reads back the same before the plain file
is removed. summary.json, run.json, ab.json and the reports stay as they are;
sprint report, wire, restarts and flows read the compressed files as before.

  --dry-run, -n  only say what would be compressed
`;

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1);

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let dirs: readonly string[];
  let dryRun: boolean;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (args.positionals.length === 0) throw new UsageError('expected at least one results folder');
    for (const d of args.positionals) if (!existsSync(d) || !statSync(d).isDirectory()) throw new UsageError(`${d}: no such folder`);
    dirs = args.positionals;
    dryRun = args.flags.has('dry-run');
  } catch (err) {
    return reportError('compact', err, io);
  }
  try {
    for (const dir of dirs) {
      const r = compactFolder(dir, dryRun);
      io.stdout.write(
        dryRun
          ? `${dir}: ${r.files} raw files, ${mb(r.bytesBefore)} MB, would be compressed\n`
          : `${dir}: ${r.files} raw files compressed, ${mb(r.bytesBefore)} MB -> ${mb(r.bytesAfter)} MB\n`,
      );
    }
    return 0;
  } catch (err) {
    io.stderr.write(`sprint compact: ${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint compact', main);
