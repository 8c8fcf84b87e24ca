// `sprint report DIR`: rebuilds an A/B results folder's reports (every run's
// summary.json, the folder's summary.json, summary.md and report.html) from
// its raw data, and prints the paper Fig. 6-style table. Needs no root and
// no browser: it only reads files. `sprint report --out MERGED DIR1 DIR2 …`
// first merges the folders of one plan made on several machines
// (`sprint ab --shard K/N`, merge.ts) into MERGED, then reports on it.

import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { alignColumns } from './format';
import { mergeResults } from './merge';
import { buildReport } from './report';
import { summaryTables } from './report-tables';
import { runMain } from '../../src/cli/run-main';

const SPEC: OptionsSpec = {
  out: { kind: 'value' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint report DIR
       sprint report --out MERGED DIR1 DIR2 …

Rebuilds DIR/summary.json, DIR/summary.md and DIR/report.html (and each run's
summary.json) from the raw data that sprint ab wrote into DIR, then prints the
video % of fair share table (paper Fig. 6).

With several folders (the shards of one plan, sprint ab --shard K/N on several
machines), copies their runs into MERGED (a new folder, or an earlier merge of
the same plan) with the full plan's ab.json, and reports on MERGED. Refuses
folders whose plans (plan hash, --abr, --page-query) or commits differ; runs
made twice, shards not given and runs nobody made are listed under Problems.
`;

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let dir: string;
  let inputs: string[];
  let merge: boolean;
  try {
    const args = parseArgs(argv, SPEC, { allowPositionals: true });
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    const out = args.values.get('out');
    if (args.positionals.length === 0) throw new UsageError('expected a results folder (or several with --out MERGED)');
    if (args.positionals.length > 1 && out === undefined)
      throw new UsageError(`${args.positionals.length} results folders: give --out MERGED for the merged folder`);
    inputs = [...args.positionals];
    dir = out ?? (args.positionals[0] as string);
    merge = out !== undefined;
  } catch (err) {
    return reportError('report', err, io);
  }
  try {
    if (merge) {
      const m = mergeResults(inputs, dir);
      io.stderr.write(
        `merged ${inputs.length} folder(s) (${m.merged.shards.join(', ')}) into ${dir}: ${m.copied.size} of ${m.manifest.plan.runs.length} run(s)\n`,
      );
    }
    const r = buildReport(dir);
    const fair = summaryTables(r.aggregate)[0];
    if (fair) {
      io.stdout.write(`${fair.title}\n`);
      for (const b of fair.blocks) {
        if (b.caption) io.stdout.write(`${b.caption}\n`);
        for (const line of alignColumns([b.header, ...b.rows.map((x) => x.cells)], '  ')) io.stdout.write(`${line}\n`);
      }
    }
    io.stdout.write(`runs: ${r.runs.length} summarized, ${r.missing.length} not made, ${r.unreadable.length} unreadable\n`);
    for (const u of r.unreadable) io.stderr.write(`sprint report: ${u.dir}: ${u.error}\n`);
    for (const n of r.notes) io.stderr.write(`sprint report: ${n}\n`);
    io.stdout.write(`${r.files.summaryMd}\n${r.files.reportHtml}\n`);
    return r.unreadable.length > 0 ? 1 : 0;
  } catch (err) {
    io.stderr.write(`sprint report: ${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint report', main);
