// `sprint report DIR`: rebuilds an A/B results folder's reports (every run's
// summary.json, the folder's summary.json, summary.md and report.html) from
// its raw data, and prints the paper Fig. 6-style table. Needs no root and
// no browser: it only reads files. `sprint report --out MERGED DIR1 DIR2 …`
// first merges the folders of one plan made on several machines
// (`sprint ab --shard K/N`, merge.ts) into MERGED, then reports on it.
// `sprint report --paper INDEX` rebuilds the folders an index names and
// writes the paper's figures (paper-tables.ts) into docs/results.md, the
// summary into README.md and Fig. 6's heat maps into docs/fig6.svg; with
// `--check` it writes nothing and fails when those files are out of date.

import { OptionsSpec, parseArgs, UsageError } from '../../src/cli/args';
import { CliIo, processIo, reportError } from '../../src/cli/io';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import * as path from 'path';
import { alignColumns } from './format';
import {
  FolderData,
  loadFolder,
  markedTables,
  paperHtml,
  paperTables,
  readPaperIndex,
  replaceMarkedTables,
  summaryTable,
} from './paper-tables';
import { fig6Svg } from './paper-figure';
import { mergeResults } from './merge';
import { buildReport, contentProblem } from './report';
import { readManifest } from './manifest';
import { summaryTables } from './report-tables';
import { runMain } from '../../src/cli/run-main';

const SPEC: OptionsSpec = {
  out: { kind: 'value' },
  paper: { kind: 'value' },
  readme: { kind: 'value' },
  results: { kind: 'value' },
  check: { kind: 'flag' },
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

  sprint report --paper INDEX [--results FILE] [--readme FILE] [--check] [--no-rebuild]

rebuilds every folder the index names (demo/results/paper.json: the folders
that feed each of the paper's figures, relative to the index), prints the
compact tables of Fig. 6, Table I, Fig. 11 and the competitors (median
[min–max] (runs) per cell) and writes paper.html beside the index. It
replaces the blocks between <!-- paper-table: ID --> and <!-- /paper-table -->
in --results FILE (default docs/results.md: every figure) and --readme FILE
(default README.md: the "summary" block), and writes Fig. 6's heat maps,
stock beside Sprint, to fig6.svg beside the results file. The defaults
apply when neither file is given; one that is not there is skipped. --check writes nothing, reads the folders'
summary.json as they are, and fails when a block or fig6.svg differs from
what they give. --no-rebuild reads the folders' summary.json as they are.
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
      const check = args.flags.has('check');
      return paperReport(
        paper,
        { results: args.values.get('results'), readme: args.values.get('readme') },
        check,
        !check && !args.flags.has('no-rebuild'),
        io,
      );
    }
    if (['readme', 'results'].some((k) => args.values.has(k)) || args.flags.has('no-rebuild') || args.flags.has('check'))
      throw new UsageError('--results, --readme, --check and --no-rebuild go with --paper');
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

/**
 * The Markdown files --paper keeps: those given, or when none is given docs/results.md and README.md
 * of the working directory (one that is not there is skipped).
 */
function paperDocs(given: { results?: string; readme?: string }): { results?: string; readme?: string } {
  const none = given.results === undefined && given.readme === undefined;
  const pick = (file: string | undefined, fallback: string): string | undefined => {
    if (file !== undefined) {
      if (!existsSync(file)) throw new Error(`${file}: no such file`);
      return file;
    }
    return none && existsSync(fallback) ? fallback : undefined;
  };
  return { results: pick(given.results, path.join('docs', 'results.md')), readme: pick(given.readme, 'README.md') };
}

/**
 * `--paper`: the folders an index names, rebuilt unless told not to, folded into the paper's figures
 * and written (or, with `check`, compared) into the docs.
 */
function paperReport(indexFile: string, given: { results?: string; readme?: string }, check: boolean, rebuild: boolean, io: CliIo): number {
  try {
    const index = readPaperIndex(indexFile);
    const docs = paperDocs(given);
    const base = path.dirname(indexFile);
    // Each folder is rebuilt and read once, however many figures it feeds (Fig. 6 and Table I share theirs).
    const folders = new Map<string, FolderData>();
    const load = (name: string): FolderData => {
      const seen = folders.get(name);
      if (seen) return seen;
      const dir = path.join(base, name);
      if (rebuild) {
        // A rebuild without the content would empty committed figures (and the docs' tables with them).
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
    const blocks = new Map<string, string>(tables);
    blocks.set('summary', summaryTable(index, load));
    if (!check) for (const [id, text] of blocks) io.stdout.write(`<!-- paper-table: ${id} -->\n${text}\n<!-- /paper-table -->\n\n`);
    const html = paperHtml(index, load);
    if (html !== null && !check) {
      writeFileSync(path.join(base, 'paper.html'), html);
      io.stderr.write(`${path.join(base, 'paper.html')}: paper Fig. 6 as heat maps\n`);
    }
    const stale: string[] = [];
    const seen = new Set<string>();
    for (const file of [docs.results, docs.readme]) {
      if (file === undefined) continue;
      const before = readFileSync(file, 'utf8');
      const after = replaceMarkedTables(before, blocks, file);
      const had = markedTables(before);
      for (const id of had.keys()) seen.add(id);
      const changed = [...had.keys()].filter((id) => had.get(id) !== blocks.get(id));
      stale.push(...changed.map((id) => `${file} ${id}`));
      if (!check && after !== before) writeFileSync(file, after);
      io.stderr.write(
        `${file}: ${changed.length > 0 ? `${check ? 'differs in' : 'rewrote'} ${changed.join(', ')}` : 'no table changed'}\n`,
      );
    }
    const absent = [...blocks.keys()].filter((id) => !seen.has(id));
    if (absent.length > 0 && (docs.results || docs.readme))
      io.stderr.write(`no block for ${absent.join(', ')} (add <!-- paper-table: ID --> … <!-- /paper-table -->)\n`);
    const svg = fig6Svg(index, load);
    if (docs.results !== undefined && svg !== null) {
      const file = path.join(path.dirname(docs.results), 'fig6.svg');
      const same = existsSync(file) && readFileSync(file, 'utf8') === svg;
      if (!same) stale.push(file);
      if (!check && !same) writeFileSync(file, svg);
      io.stderr.write(`${file}: ${same ? 'unchanged' : check ? 'differs' : 'paper Fig. 6, stock beside Sprint'}\n`);
    }
    if (check && stale.length > 0) {
      io.stderr.write(`sprint report: out of date: ${stale.join('; ')} (run without --check to rewrite)\n`);
      return 1;
    }
    return 0;
  } catch (err) {
    io.stderr.write(`sprint report: ${(err as Error).message}\n`);
    return 1;
  }
}
