// `sprint report DIR`: rebuilds an A/B results folder's reports (every run's
// summary.json, the folder's summary.json, summary.md and report.html) from
// its raw data, and prints the paper Fig. 6-style table. Needs no root and
// no browser: it only reads files.

import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { buildReport } from './report';
import { summaryTables } from './report-tables';

const SPEC: OptionsSpec = {
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint report DIR

Rebuilds DIR/summary.json, DIR/summary.md and DIR/report.html (and each run's
summary.json) from the raw data that sprint ab wrote into DIR, then prints the
video % of fair share table (paper Fig. 6).
`;

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let dir: string;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    if (args.positionals.length !== 1) throw new UsageError(`expected one results folder, got ${args.positionals.length} arguments`);
    dir = args.positionals[0] as string;
  } catch (err) {
    return reportError('report', err, io);
  }
  try {
    const r = buildReport(dir);
    const fair = summaryTables(r.aggregate)[0];
    if (fair) {
      io.stdout.write(`${fair.title}\n`);
      for (const b of fair.blocks) {
        if (b.caption) io.stdout.write(`${b.caption}\n`);
        const rows = [b.header, ...b.rows.map((x) => x.cells)];
        const widths = b.header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
        for (const row of rows) io.stdout.write(`  ${row.map((c, i) => c.padEnd(widths[i] as number)).join('  ')}\n`);
      }
    }
    io.stdout.write(`runs: ${r.runs.length} summarized, ${r.missing.length} not made, ${r.unreadable.length} unreadable\n`);
    for (const u of r.unreadable) io.stderr.write(`sprint report: ${u.dir}: ${u.error}\n`);
    io.stdout.write(`${r.files.summaryMd}\n${r.files.reportHtml}\n`);
    return r.unreadable.length > 0 ? 1 : 0;
  } catch (err) {
    io.stderr.write(`sprint report: ${(err as Error).message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
