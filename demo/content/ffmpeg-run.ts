/**
 * Runs ffmpeg as a child process for the content generator: checks that it exists (with the install
 * hint when it does not), reports `-progress` output time, and turns a failure into an Error that
 * carries the exit status and the tail of ffmpeg's stderr.
 */
import { spawn } from 'child_process';

export const INSTALL_HINT = 'install ffmpeg: apt-get install -y ffmpeg';

const STDERR_TAIL_CHARS = 4000;

export interface RunOptions {
  /** What this run is, for messages ("encode", "package chunked"). */
  label: string;
  cwd?: string;
  /** Called with the output time (seconds) from `-progress pipe:1` key=value lines on stdout. */
  onProgressSec?: (outTimeSec: number) => void;
}

function tail(s: string): string {
  return s.length > STDERR_TAIL_CHARS ? `...${s.slice(-STDERR_TAIL_CHARS)}` : s;
}

/** Runs `ffmpegPath args`; resolves when it exits 0, rejects with a clear message otherwise. */
export function runFfmpeg(ffmpegPath: string, args: string[], opts: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    let stdoutLine = '';
    const child = spawn(ffmpegPath, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = tail(stderr + d);
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      const lines = (stdoutLine + d).split('\n');
      stdoutLine = lines.pop() ?? '';
      for (const line of lines) {
        // ffmpeg >= 4.4 prints out_time_us; older ones out_time_ms, which is also in microseconds.
        const m = /^out_time_(?:us|ms)=(\d+)\s*$/.exec(line);
        if (m && opts.onProgressSec) opts.onProgressSec(Number(m[1]) / 1e6);
      }
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        reject(new Error(`ffmpeg not found (tried "${ffmpegPath}"): ${INSTALL_HINT}`));
      } else {
        reject(new Error(`could not start ffmpeg ("${ffmpegPath}") for ${opts.label}: ${err.message}`));
      }
    });
    child.on('close', (code, signal) => {
      if (code === 0) {
        resolve();
        return;
      }
      const status = signal ? `killed by ${signal}` : `exit code ${code}`;
      const shown = tail(stderr).trim() || '(nothing on stderr)';
      reject(
        new Error(
          `ffmpeg ${opts.label} failed (${status}).\ncommand: ${ffmpegPath} ${args.join(' ')}\n` +
            `--- tail of ffmpeg's stderr ---\n${shown}`,
        ),
      );
    });
  });
}

/** First line of `ffmpeg -version` (e.g. "ffmpeg version 5.1.9-0+deb12u1 ..."); clear error if missing. */
export function ffmpegVersion(ffmpegPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const child = spawn(ffmpegPath, ['-hide_banner', '-version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (out.length < 10000) out += d;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      err = tail(err + d);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        new Error(
          e.code === 'ENOENT'
            ? `ffmpeg not found (tried "${ffmpegPath}"): ${INSTALL_HINT}`
            : `could not start ffmpeg ("${ffmpegPath}"): ${e.message}`,
        ),
      );
    });
    child.on('close', (code) => {
      const first = out.split('\n')[0].trim();
      if (code === 0 && first.startsWith('ffmpeg version')) resolve(first);
      else
        reject(
          new Error(
            `"${ffmpegPath} -version" did not work (exit code ${code}); ${INSTALL_HINT}\n` +
              `--- tail of its stderr ---\n${err.trim() || '(nothing on stderr)'}`,
          ),
        );
    });
  });
}
