/**
 * `npm run demo`: the quick-start main job. Makes the demo content if it is
 * missing (ffmpeg, one-time, a few minutes), starts the origin on loopback
 * and prints the URLs to open: the same page in each layout and mode.
 * Ctrl-C stops the origin.
 */
import { ensureContent } from './content/generate';
import { startOrigin } from './server/origin';
import { parseArgs, parseInteger, UsageError } from '../src/cli/args';
import { processIo, reportError, type CliIo } from '../src/cli/io';
import { runMain } from '../src/cli/run-main';

export const USAGE = `Usage: npm run demo -- [--host 127.0.0.1] [--port 8080] [--set demo]

Generates the demo content if missing, serves it with the Sprint player and
prints the page URLs. Open one in Chrome or Chromium; Ctrl-C to stop.`;

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    const args = parseArgs(argv, {
      host: { kind: 'value' },
      port: { kind: 'value' },
      set: { kind: 'value' },
      help: { kind: 'flag', short: 'h' },
    });
    if (args.flags.has('help')) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const host = args.values.get('host') ?? '127.0.0.1';
    const port = args.values.has('port') ? parseInteger(args.values.get('port') as string, '--port', 0) : 8080;
    if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
    const set = args.values.get('set') ?? 'demo';
    io.stderr.write(`demo: checking content set "${set}"...\n`);
    await ensureContent({ set, log: (line) => io.stderr.write(`demo: ${line}\n`) });
    const origin = await startOrigin({ host, port });
    const base = origin.url;
    io.stdout.write(`\nSprint demo serving ${base}\n\n`);
    for (const [layout, mode] of [
      ['unchunked', 'auto'],
      ['unchunked', 'sprint-x'],
      ['unchunked', 'stock'],
      ['chunked', 'stock'],
    ]) {
      io.stdout.write(`  ${base}/?set=${set}&layout=${layout}&mode=${mode}\n`);
    }
    io.stdout.write('\nCtrl-C to stop.\n');
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await origin.close();
    return 0;
  } catch (e) {
    return reportError('demo', e, io);
  }
}

runMain(module, 'sprint demo', main, { exit: 'now' });
