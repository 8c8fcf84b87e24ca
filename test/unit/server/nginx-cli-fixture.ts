// A real nginx origin on loopback for the unit tests, started through the
// project's CLI (dist/demo/server/nginx-origin.js) in a temporary folder with
// a 300 kB patterned media file: the shared set-up of the HTTP/1.1 and the
// HTTP/2 nginx tests. `stop()` ends the process it started (by its handle)
// and removes the folder.

import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_NGINX } from '../../../demo/server/nginx-origin';

const root = path.join(__dirname, '..', '..', '..');
export const NGINX_CLI = path.join(root, 'dist', 'demo', 'server', 'nginx-origin.js');
export const HAVE_NGINX = fs.existsSync(DEFAULT_NGINX);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.once('error', reject);
  });
}

export interface NginxCliOrigin {
  dir: string;
  port: number;
  /** The media file served as /media/rep.mp4. */
  file: Buffer;
  /** The URL the CLI printed when ready. */
  url: string;
  logPath: string;
  /** The CLI process (the tests may signal it; `stop()` is then a no-op for it). */
  child: ChildProcess;
  /** Its access log's records so far. */
  records(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Starts the CLI on a free port; `prepare(dir)` may write files into the
 * folder first and return extra arguments (e.g. a certificate for --h2).
 */
export async function startNginxCli(name: string, prepare: (dir: string) => string[] = () => []): Promise<NginxCliOrigin> {
  if (!fs.existsSync(NGINX_CLI)) throw new Error(`${NGINX_CLI} is not built: run npm run build:node`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sprint-${name}-test-`));
  let child: ChildProcess | null = null;
  const logPath = path.join(dir, 'access.jsonl');
  const stop = async (): Promise<void> => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const d of ['media', 'page', 'dist']) fs.mkdirSync(path.join(dir, d));
    const file = Buffer.alloc(300_000);
    for (let i = 0; i < file.length; i += 1) file[i] = (i * 31 + 3) % 253;
    fs.writeFileSync(path.join(dir, 'media', 'rep.mp4'), file);
    fs.writeFileSync(path.join(dir, 'page', 'index.html'), '<!doctype html><title>t</title>');
    const extra = prepare(dir);
    const port = await freePort();
    const args = [
      NGINX_CLI,
      '--port',
      String(port),
      '--log',
      logPath,
      '--media',
      path.join(dir, 'media'),
      '--page',
      path.join(dir, 'page'),
      '--dist',
      path.join(dir, 'dist'),
      ...extra,
    ];
    const started = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let err = '';
    started.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nginx origin not ready: ${err}`)), 10_000);
      started.stdout?.once('data', (b: Buffer) => {
        clearTimeout(timer);
        resolve(b.toString().trim());
      });
      started.once('exit', (code) => reject(new Error(`nginx origin exited ${code}: ${err}`)));
    });
    const records = (): Array<Record<string, unknown>> =>
      fs.existsSync(logPath)
        ? fs
            .readFileSync(logPath, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Record<string, unknown>)
        : [];
    return { dir, port, file, url, logPath, child: started, records, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
