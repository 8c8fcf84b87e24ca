// `sprint report DIR`: rebuilds an A/B results folder's reports (every run's
// summary.json, the folder's summary.json, summary.md and report.html) from
// its raw data, and prints the paper Fig. 6-style table. Needs no root and
// no browser: it only reads files. `sprint report --out MERGED DIR1 DIR2 …`
// first merges the folders of one plan made on several machines
// (`sprint ab --shard K/N`, merge.ts) into MERGED, then reports on it.
// `sprint report --paper INDEX` rebuilds the folders an index names and
// prints the README's compact tables of the paper's figures
// (paper-tables.ts); with `--readme FILE` it rewrites them there.

import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import { alignColumns } from './format';
import {
  FigureId,
  FolderData,
  loadFolder,
  paperHtml,
  paperTables,
  readmeTables,
  readPaperIndex,
  replaceReadmeTables,
} from './paper-tables';
import { mergeResults } from './merge';
import { buildReport, contentProblem } from './report';
import { readManifest } from './manifest';
import { summaryTables } from './report-tables';
import { runMain } from '../../src/cli/run-main';

const SPEC: OptionsSpec = {
  out: { kind: 'value' },
  paper: { kind: 'value' },
  readme: { kind: 'value' },
  'no-rebuild': { kind: 'flag' },
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

  sprint report --paper INDEX [--readme FILE] [--no-rebuild]

rebuilds every folder the index names (demo/results/paper.json: the folders
that feed each of the paper's figures, relative to the index) and prints the
compact tables of Fig. 6, Table I, Fig. 11 and the competitors: median
[min–max] (runs) per cell, and writes paper.html beside the index (Fig. 6
as heat maps side by side over the whole grid). --readme FILE replaces the tables between FILE's
<!-- paper-table: ID --> and <!-- /paper-table --> markers. --no-rebuild
reads the folders' summary.json as they are.
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
    const paper = args.values.get('paper');
    if (paper !== undefined) {
      if (args.positionals.length > 0 || args.values.has('out'))
        throw new UsageError('--paper takes the index alone: no results folders, no --out');
      return paperReport(paper, args.values.get('readme'), !args.flags.has('no-rebuild'), io);
    }
    if (args.values.has('readme') || args.flags.has('no-rebuild')) throw new UsageError('--readme and --no-rebuild go with --paper');
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

/** `--paper`: the folders an index names, rebuilt unless told not to, folded into the paper's figures. */
function paperReport(indexFile: string, readme: string | undefined, rebuild: boolean, io: CliIo): number {
  try {
    const index = readPaperIndex(indexFile);
    if (readme !== undefined && !existsSync(readme)) throw new Error(`${readme}: no such file`);
    const base = path.dirname(indexFile);
    // Each folder is rebuilt and read once, however many figures it feeds (Fig. 6 and Table I share theirs).
    const folders = new Map<string, FolderData>();
    const load = (name: string): FolderData => {
      const seen = folders.get(name);
      if (seen) return seen;
      const dir = path.join(base, name);
      if (rebuild) {
        // A rebuild without the content would empty committed figures (and the README's tables with them).
        const missing = contentProblem(readManifest(dir));
        if (missing) throw new Error(`cannot rebuild ${name}: ${missing}; pass --no-rebuild to use its summary.json as it is`);
        const r = buildReport(dir);
        // A table short of runs that exist would pass for the whole figure: stop before anything is rewritten.
        if (r.unreadable.length > 0)
          throw new Error(
            `${name}: ${r.unreadable.length} run(s) could not be read (${r.unreadable.map((u) => `${u.dir}: ${u.error}`).join('; ')})`,
          );
        io.stderr.write(`rebuilt ${name}: ${r.runs.length} run(s), ${r.missing.length} not made\n`);
      }
      const f = loadFolder(dir);
      folders.set(name, f);
      return f;
    };
    const tables = paperTables(index, load);
    for (const [id, text] of tables) io.stdout.write(`<!-- paper-table: ${id} -->\n${text}\n<!-- /paper-table -->\n\n`);
    const html = paperHtml(index, load);
    if (html !== null) {
      writeFileSync(path.join(base, 'paper.html'), html);
      io.stderr.write(`${path.join(base, 'paper.html')}: paper Fig. 6 as heat maps\n`);
    }
    if (readme !== undefined) {
      const before = readFileSync(readme, 'utf8');
      const after = replaceReadmeTables(before, tables);
      const had = readmeTables(before);
      const changed = [...tables.keys()].filter((id) => had.has(id) && had.get(id) !== tables.get(id as FigureId));
      const absent = [...tables.keys()].filter((id) => !had.has(id));
      if (after !== before) writeFileSync(readme, after);
      io.stderr.write(
        `${readme}: ${changed.length > 0 ? `rewrote ${changed.join(', ')}` : 'no table changed'}${absent.length > 0 ? `; no block for ${absent.join(', ')} (add <!-- paper-table: ID --> … <!-- /paper-table -->)` : ''}\n`,
      );
    }
    return 0;
  } catch (err) {
    io.stderr.write(`sprint report: ${(err as Error).message}\n`);
    return 1;
  }
}
