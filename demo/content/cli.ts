/**
 * `npx sprint content` / `npm run content`: generates a demo content set if it is missing.
 *
 *   sprint content [--set demo|test|eval|eval-light|bwx|bwx2|NAME] [--duration SECONDS] [--media DIR] [--force]
 *
 * Progress goes to stderr (encode progress every 10 %; "nothing to do" when the set is already
 * complete and made by the current recipe); on success stdout gets one JSON line with the set folder, its manifests
 * and the per-representation nominal vs measured bitrates. Exit codes: 0 ok, 1 generation failed,
 * 2 bad arguments.
 */
import * as path from 'path';
import { contentDir, defaultMediaRoot, ensureContent } from './generate';
import { BWX2_LADDER, BWX_LADDER, DEFAULT_DURATION_SEC, EVAL_LADDER, VIDEO_LADDER } from './recipe';
import { runMain } from '../../src/cli/run-main';

const USAGE = `Usage: sprint content [--set demo|test|eval|eval-light|bwx|bwx2|NAME] [--duration SECONDS] [--media DIR] [--force]

Generates a DASH content set (H.264 CBR rungs + AAC, 4 s segments) in two layouts, chunked/
(SegmentTemplate) and unchunked/ (SegmentBase, byte ranges), unless it already exists and was made
by the current recipe (then: nothing to do). Progress goes to stderr.
  --set NAME        content set (default: demo):
                      demo = ${DEFAULT_DURATION_SEC.demo} s, test = ${DEFAULT_DURATION_SEC.test} s: ${VIDEO_LADDER.length} rungs 300 kbit/s..6 Mbit/s
                      eval = ${DEFAULT_DURATION_SEC.eval} s: ${EVAL_LADDER.length} rungs 300 kbit/s..20 Mbit/s (the evaluation grid, 20-minute
                      runs; ~10 GB per layout, minutes of CPU: generate it once, not on a loaded machine)
                      eval-light = eval's rungs, all at 320x180: the same segment bytes, a fraction
                      of the decoding CPU (the 25 Mbit/s cells on a 2-core machine)
                      bwx = ${DEFAULT_DURATION_SEC.bwx} s: ${BWX_LADDER.length} rungs, the demo ladder plus 0.85..1.35 Mbit/s (BW-x
                      at a 1.5 Mbit/s fair share, paper Fig. 11)
                      bwx2 = ${DEFAULT_DURATION_SEC.bwx2} s: ${BWX2_LADDER.length} rungs, bwx plus 0.45 and 0.6 Mbit/s (steps of
                      at most 0.15 Mbit/s from 0.3 to 1.5 Mbit/s: BW-50 too; the paper's 25-minute Fig. 11 runs)
  --duration SEC    length in seconds (default per set)
  --media DIR       folder holding the sets (default: <repository>/demo/media)
  --force           regenerate even if present
Needs ffmpeg (apt-get install -y ffmpeg).
`;

class UsageError extends Error {}

interface Args {
  set: string;
  durationSec?: number;
  mediaRoot?: string;
  force: boolean;
  help: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { set: 'demo', force: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] =
      a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--set':
        args.set = value();
        break;
      case '--duration': {
        const v = value();
        const n = Number(v.replace(/s$/, ''));
        if (!/^\d+(\.\d+)?s?$/.test(v) || !(n > 0)) throw new UsageError(`--duration "${v}" is not a positive number of seconds`);
        args.durationSec = n;
        break;
      }
      case '--media':
        args.mediaRoot = path.resolve(value());
        break;
      case '--force':
        if (inline !== undefined) throw new UsageError('--force takes no value');
        args.force = true;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new UsageError(`unknown argument "${a}"`);
    }
  }
  return args;
}

export async function main(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
    if (args.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    contentDir(args.set, args.mediaRoot ?? defaultMediaRoot()); // validates the set name
  } catch (e) {
    process.stderr.write(`sprint content: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  try {
    const startedAt = Date.now();
    const info = await ensureContent({
      set: args.set,
      durationSec: args.durationSec,
      mediaRoot: args.mediaRoot,
      force: args.force,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    const dir = contentDir(args.set, args.mediaRoot ?? defaultMediaRoot());
    if (Date.parse(info.generatedAt) < startedAt) {
      process.stderr.write(
        `content[${args.set}]: ${dir} is complete and current (generated ${info.generatedAt}, ${info.durationSec} s): nothing to do\n`,
      );
    }
    process.stdout.write(
      JSON.stringify({
        dir,
        durationSec: info.durationSec,
        manifests: { chunked: path.join(dir, info.layouts.chunked.manifest), unchunked: path.join(dir, info.layouts.unchunked.manifest) },
        generatedAt: info.generatedAt,
        generator: info.generator,
        bytes: info.bytes,
        representations: info.layouts.unchunked.representations.map((r) => ({
          id: r.id,
          contentType: r.contentType,
          bandwidth: r.bandwidth,
          measuredBitrate: r.measuredBitrate,
          measuredToNominal: r.measuredToNominal,
        })),
      }) + '\n',
    );
    return 0;
  } catch (e) {
    process.stderr.write(`sprint content: ${(e as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'sprint content', main);
