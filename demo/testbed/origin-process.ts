// Starts an origin server process inside the testbed's server namespace and
// waits until it is serving. Default: our origin's CLI
// (dist/demo/server/cli.js, which prints its URL on the first stdout line when
// listening); any other command that prints a line starting with "http" when
// ready can be given instead (e.g. nginx wrapped in a script, or a stand-in
// server in tests). One process per port: the harness gives every player and
// bulk flow its own origin port so the wire capture can tell flows apart.

import { existsSync } from 'fs';
import * as path from 'path';
import { repoRoot } from './delay-element';
import type { Testbed } from './topology';

export interface OriginCommand {
  readonly command: string;
  readonly args: readonly string[];
}

export interface StartOriginProcessOptions {
  readonly port: number;
  /** Access log (JSON lines) for this origin, passed as --log. */
  readonly logPath?: string;
  /** Extra CLI arguments for our origin (e.g. ["--media", dir]). */
  readonly extraArgs?: readonly string[];
  /** Replace the whole command (the host/port/log arguments are then up to the caller). */
  readonly command?: OriginCommand;
  /** How long to wait for the ready line (default 10000 ms). */
  readonly readyTimeoutMs?: number;
}

export interface OriginProcess {
  readonly pid: number;
  readonly port: number;
  /** The URL the origin printed (e.g. "http://10.201.1.2:8001/"). */
  readonly url: string;
  /** SIGTERM and wait for exit. Idempotent. */
  stop(): Promise<void>;
}

/** Absolute path of a compiled script under dist/, e.g. distScript('demo/server/cli.js'). */
export function distScript(relative: string): string {
  return path.join(repoRoot(), 'dist', relative);
}

/** The command line that runs our origin on the testbed's server address. */
export function defaultOriginCommand(testbed: Testbed, options: StartOriginProcessOptions): OriginCommand {
  const cli = distScript('demo/server/cli.js');
  if (!existsSync(cli)) throw new Error(`origin CLI not built: ${cli} is missing (run npm run build:node)`);
  const args = [cli, '--host', testbed.serverAddr, '--port', String(options.port)];
  if (options.logPath) args.push('--log', options.logPath);
  args.push(...(options.extraArgs ?? []));
  return { command: process.execPath, args };
}

export async function startOriginProcess(testbed: Testbed, options: StartOriginProcessOptions): Promise<OriginProcess> {
  const cmd = options.command ?? defaultOriginCommand(testbed, options);
  const child = testbed.exec(testbed.serverNs, cmd.command, cmd.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    label: `origin:${options.port}`,
  });
  const pid = child.pid as number;
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (s: string) => {
    stderr = (stderr + s).slice(-4096);
  });
  const timeoutMs = options.readyTimeoutMs ?? 10000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`origin on port ${options.port} not ready within ${timeoutMs} ms: ${stderr.trim() || 'no output'}`)),
      timeoutMs,
    );
    const onData = (s: string): void => {
      stdout += s;
      const line = stdout.split('\n').find((l) => l.startsWith('http'));
      if (line !== undefined && stdout.includes('\n')) finish(null, line.trim());
    };
    const onExit = (code: number | null): void =>
      finish(new Error(`origin on port ${options.port} exited (code ${code}) before serving: ${stderr.trim() || 'no output'}`));
    const finish = (err: Error | null, value?: string): void => {
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.removeListener('exit', onExit);
      if (err) reject(err);
      else resolve(value as string);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  }).catch(async (err: Error) => {
    await testbed.stop(pid, 500);
    throw err;
  });
  // Keep draining stdout so the origin never blocks on a full pipe.
  child.stdout?.resume();
  let stopping: Promise<void> | null = null;
  return {
    pid,
    port: options.port,
    url,
    stop: () => (stopping ??= testbed.stop(pid, 3000)),
  };
}
