// Tests for `sprint model` (src/cli/model.ts) and the `sprint` dispatcher
// (bin/sprint.js). The dispatcher tests run the built CLI as a child process:
// they need dist/ from `npm run build:node` (`npm test` builds first) and fail
// loudly, naming the command to run, when dist/ is missing or older than src/.

import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { main } from '../../../src/cli/model';
import type { CliIo } from '../../../src/cli/io';

const ROOT = path.resolve(__dirname, '../../..');
const BIN = path.join(ROOT, 'bin/sprint.js');

/** Runs main() in-process, capturing what it writes. */
async function runMain(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** Runs `node <bin> args...` as a child process (bounded by a timeout). */
function runBin(args: string[], bin = BIN): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('sprint model (in-process)', () => {
  test('1.5 Mbit/s, 200 ms: JSON with BDP, chunk size, outstanding window, prediction', async () => {
    const r = await runMain(['--bandwidth', '1.5mbit', '--rtt', '200ms']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout);
    expect(out.inputs).toMatchObject({
      bandwidthBitsPerSec: 1.5e6,
      rttSec: 0.2,
      epsilon: 0.1,
      mssBytes: 1460,
      initialWindowSegments: 10,
      segmentBytes: 750_000, // default: 4 s at 1.5 Mbit/s
    });
    expect(out.inputs.segmentBytesSource).toMatch(/default/);
    expect(out.fairBdpBytes).toBe(37_500);
    expect(out.chunkBytes).toBe(3_037_500);
    expect(out.windowBdps).toBe(2);
    expect(out.windowBytes).toBe(75_000);
    expect(out.outstandingRequests).toBe(2);
    expect(out.chunkPrediction.rounds).toEqual({ r1: 2, r2: 7, r3: 74, total: 83 });
    expect(out.chunkPrediction.efficiency).toBeGreaterThanOrEqual(0.9);
  });

  test('options: --key=value form, epsilon, mss, initial window, segment bytes', async () => {
    const r = await runMain([
      '--bandwidth=10mbit',
      '--rtt=100ms',
      '--epsilon',
      '0.5',
      '--mss',
      '1460',
      '--initial-window',
      '10',
      '--segment-bytes',
      '16kb',
    ]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // BDP 125,000 B; r1 = 4, r2 = 22; S = 0.5 × (26 / 0.5) × 125,000 = 3,250,000
    expect(out.chunkBytes).toBe(3_250_000);
    // window 2 × 125,000 B; 250,000 / 16,384 = 15.26 -> 16 requests
    expect(out.inputs.segmentBytes).toBe(16_384);
    expect(out.inputs.segmentBytesSource).toBe('--segment-bytes');
    expect(out.outstandingRequests).toBe(16);
  });

  test('--window-bdps sets the outstanding window in fair BDPs, 1 to 8', async () => {
    const base = ['--bandwidth', '10mbit', '--rtt', '100ms', '--segment-bytes', '16kb'];
    const one = JSON.parse((await runMain([...base, '--window-bdps', '1'])).stdout);
    expect(one.windowBytes).toBe(125_000);
    expect(one.outstandingRequests).toBe(8); // 125,000 / 16,384 = 7.63 -> 8, the paper's one BDP
    for (const bad of ['0.5', '9', 'two']) {
      const r = await runMain([...base, '--window-bdps', bad]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/--window-bdps/);
    }
  });

  test('--help prints usage and exits 0', async () => {
    const r = await runMain(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: sprint model --bandwidth RATE --rtt DURATION/);
  });

  test.each([
    [['--bandwidth', '1.5mbit', '--rtt', '0'], /--rtt.*greater than zero/],
    [['--bandwidth', '1.5mbit', '--rtt', '-5ms'], /--rtt.*negative/],
    [['--bandwidth', '1.5mbit', '--rtt', '200'], /--rtt.*no unit/],
    [['--bandwidth', '1.5mbit'], /--rtt is required/],
    [['--rtt', '200ms'], /--bandwidth is required/],
    [['--bandwidth', '1.5Mbps', '--rtt', '200ms'], /--bandwidth.*ambiguous/],
    [['--bandwidth', '1.5furlongs', '--rtt', '200ms'], /--bandwidth.*unknown unit/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--epsilon', '1'], /--epsilon.*between 0 and 1/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--epsilon', 'x'], /--epsilon.*not a number/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--mss', '0'], /--mss.*greater than zero/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--initial-window', '2.5'], /--initial-window/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--segment-bytes', '-1kb'], /--segment-bytes.*negative/],
    [['--bandwidth', '1.5mbit', '--rtt', '200ms', '--bogus', '1'], /unknown option --bogus/],
  ])('%p exits 2 with a one-line message, no stack', async (argv, message) => {
    const r = await runMain(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^sprint model: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('bin/sprint.js (built CLI as a child process)', () => {
  beforeAll(() => {
    // Fail loudly rather than test stale or missing output.
    const sources = [
      'src/cli/model.ts',
      'src/cli/args.ts',
      'src/cli/io.ts',
      'src/units.ts',
      'src/model/chunk-size.ts',
      'src/model/outstanding-window.ts',
      'src/model/validate.ts',
    ];
    for (const src of sources) {
      const built = path.join(ROOT, 'dist', src.replace(/\.ts$/, '.js'));
      if (!fs.existsSync(built)) {
        throw new Error(`${path.relative(ROOT, built)} is missing: run \`npm run build:node\` first (npm test does)`);
      }
      if (fs.statSync(built).mtimeMs < fs.statSync(path.join(ROOT, src)).mtimeMs) {
        throw new Error(`${path.relative(ROOT, built)} is older than ${src}: run \`npm run build:node\``);
      }
    }
  });

  test('sprint model --bandwidth 1.5mbit --rtt 200ms prints a chunk size of about 3.0–3.2 MB', () => {
    const r = runBin(['model', '--bandwidth', '1.5mbit', '--rtt', '200ms']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.chunkBytes).toBeGreaterThanOrEqual(3.0e6);
    expect(out.chunkBytes).toBeLessThanOrEqual(3.2e6);
    expect(out.fairBdpBytes).toBe(37_500);
    expect(out.outstandingRequests).toBeGreaterThanOrEqual(2);
  });

  test('sprint model --rtt 0 exits non-zero with a message about the rtt', () => {
    const r = runBin(['model', '--bandwidth', '1.5mbit', '--rtt', '0']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/rtt/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('--help lists the commands; unknown or no command lists them and exits 2', () => {
    const help = runBin(['--help']);
    expect(help.code).toBe(0);
    for (const c of ['model', 'serve', 'content', 'ab', 'report']) expect(help.stdout).toMatch(new RegExp(`\\n  ${c} `));
    const unknown = runBin(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    expect(unknown.stderr).toMatch(/model/);
    expect(runBin([]).code).toBe(2);
  });

  test('a command whose module is not built says to run npm run build (exit 2)', () => {
    // A copy of the dispatcher in an empty package root, so nothing under dist/ exists.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sprint-bin-'));
    try {
      fs.mkdirSync(path.join(tmp, 'bin'));
      fs.copyFileSync(BIN, path.join(tmp, 'bin/sprint.js'));
      const r = runBin(['model', '--help'], path.join(tmp, 'bin/sprint.js'));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/dist\/src\/cli\/model\.js is missing: run `npm run build` first/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('bin/sprint.js is executable with a node shebang', () => {
    expect(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(fs.statSync(BIN).mode & 0o111).not.toBe(0);
  });
});
