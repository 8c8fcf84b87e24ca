// Results stored compressed (demo/harness/compact.ts, demo/testbed/raw-files.ts):
// a committed run folder, compacted, gives the same run summary and the same
// `sprint wire` and `sprint restarts` output as before; the plain files are
// gone and only raw files were compressed; bad input is named.

import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compactFolder, removeRawFiles } from '../../../demo/harness/compact';
import { main as compactMain } from '../../../demo/harness/compact-cli';
import { main as restartsMain } from '../../../demo/harness/restarts-cli';
import { summarizeRun, loadRunData } from '../../../demo/harness/run-summary';
import { main as wireMain } from '../../../demo/harness/wire-log-cli';
import { plainName, readRawBytes, readRawText } from '../../../demo/testbed/raw-files';
import { captureIo } from '../capture-io';

const RUN = path.join(__dirname, '../../../demo/results/2026-12-01-fig11-bwx2-20min-audio-order/runs/3mbit-256kb/sprint_bw-100/r1');

describe('compacted results', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sprint-compact-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function outputs(runDir: string): Promise<string[]> {
    const wire = captureIo();
    const restarts = captureIo();
    expect(await wireMain([runDir], wire.io)).toBe(0);
    expect(await restartsMain([runDir], restarts.io)).toBe(0);
    return [wire.out(), restarts.out()];
  }

  it('reads back the same summary and CLI output from a compacted run folder', async () => {
    // The committed folder, plain whichever way it is stored.
    const run = path.join(dir, 'r1');
    cpSync(RUN, run, { recursive: true });
    for (const name of readdirSync(run).filter((n) => n.endsWith('.gz'))) {
      writeFileSync(path.join(run, plainName(name)), readRawBytes(path.join(run, name)));
      rmSync(path.join(run, name));
    }
    const before = summarizeRun(loadRunData(run));
    const printed = await outputs(run);

    const r = compactFolder(dir);
    expect(r.files).toBe(readdirSync(RUN).filter((n) => /\.(jsonl|log)(\.gz)?$/.test(n)).length);
    expect(r.bytesAfter).toBeLessThan(r.bytesBefore / 4);
    const names = readdirSync(run).sort();
    expect(names.filter((n) => /\.(jsonl|log)$/.test(n))).toEqual([]);
    expect(names).toContain('player-8001.jsonl.gz');
    expect(names).toContain('summary.json');
    expect(names).toContain('run.json');

    expect(summarizeRun(loadRunData(run))).toEqual(before);
    expect(await outputs(run)).toEqual(printed);
  });

  it('compacts through the CLI, leaves a dry run untouched, and names a bad gzip file', async () => {
    writeFileSync(path.join(dir, 'a.jsonl'), '{"x":1}\n');
    const dry = captureIo();
    expect(await compactMain([dir, '--dry-run'], dry.io)).toBe(0);
    expect(dry.out()).toMatch(/1 raw files, .* would be compressed/);
    expect(existsSync(path.join(dir, 'a.jsonl'))).toBe(true);

    const real = captureIo();
    expect(await compactMain([dir], real.io)).toBe(0);
    expect(readRawText(path.join(dir, 'a.jsonl'))).toBe('{"x":1}\n');

    writeFileSync(path.join(dir, 'b.jsonl.gz'), 'not gzip');
    expect(() => readRawText(path.join(dir, 'b.jsonl'))).toThrow(/b\.jsonl\.gz: not a readable gzip file/);
    expect(() => readRawText(path.join(dir, 'c.jsonl'))).toThrow(/c\.jsonl: no such file/);
    const missing = captureIo();
    expect(await compactMain([path.join(dir, 'nope')], missing.io)).toBe(2);
    expect(missing.err()).toMatch(/no such folder/);
  });

  it('clears a run folder of its raw files, plain and compressed, before the run is made again', () => {
    for (const name of ['player-8001.jsonl', 'wire.jsonl.gz', 'origin-8001.log', 'run.json', 'summary.json'])
      writeFileSync(path.join(dir, name), 'x');
    removeRawFiles(dir);
    expect(readdirSync(dir).sort()).toEqual(['run.json', 'summary.json']);
  });
});
