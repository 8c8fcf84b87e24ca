// Optional propagation delay for the testbed: builds and starts the Go delay
// element (demo/testbed/delay, a TUN-based fixed-delay forwarder) in the router
// namespace and steers both directions through it with policy routing:
//   ip route add default dev TUN table 101
//   ip rule add iif <router's server-facing veth> lookup 101
//   ip rule add iif <router's client-facing veth> lookup 101
// Packets the element writes back arrive on the TUN, match no rule and are
// forwarded by the main table, so the tbf bottleneck still sees them on its
// egress. The kernel here has no netem (docs/testbed.md).

import { ChildProcess, spawnSync } from 'child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ProcessTracker } from './processes';
import { runSync } from './shell';

/** Routing table used for the steering rules (per router namespace, so no clash between runs). */
export const DELAY_TABLE = '101';

/** Lateness statistics the element prints per direction when it stops. */
export interface DelayStats {
  readonly direction: 'down' | 'up';
  readonly delayMs: number;
  readonly sent: number;
  readonly dropped: number;
  readonly lateP50Ms: number;
  readonly lateP99Ms: number;
  readonly lateMaxMs: number;
  readonly over1Ms: number;
  readonly over2Ms: number;
}

export interface DelayElement {
  readonly pid: number;
  readonly tunDev: string;
  readonly downMs: number;
  readonly upMs: number;
  /** Stops the element (SIGTERM) and returns its statistics; idempotent. */
  stop(): Promise<DelayStats[]>;
}

export interface StartDelayOptions {
  readonly tracker: ProcessTracker;
  readonly routerNs: string;
  readonly tunDev: string;
  /** Router interfaces whose incoming packets go through the delay. */
  readonly ingressDevs: readonly string[];
  /** Destination subnet that counts as "down" (server→client). */
  readonly downstreamSubnet: string;
  readonly downMs: number;
  readonly upMs: number;
  /** Built binary (default: build on demand into dist/demo/testbed/delay/sprint-delay). */
  readonly binary?: string;
  /** How long to wait for "ready" (default 5000 ms). */
  readonly readyTimeoutMs?: number;
}

/** The repository root: the nearest ancestor of this file holding package.json. */
export function repoRoot(from: string = __dirname): string {
  let dir = from;
  for (let i = 0; i < 10; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error(`cannot find the repository root (package.json) above ${from}`);
}

/** Where the Go sources and the built binary live. */
export function delayPaths(root: string = repoRoot()): { sourceDir: string; binary: string } {
  return {
    sourceDir: path.join(root, 'demo', 'testbed', 'delay'),
    binary: path.join(root, 'dist', 'demo', 'testbed', 'delay', 'sprint-delay'),
  };
}

/** Builds the delay element with `CGO_ENABLED=0 go build` unless the binary is newer than every source. */
export function buildDelayElement(options: { force?: boolean; root?: string } = {}): string {
  const { sourceDir, binary } = delayPaths(options.root);
  if (!existsSync(sourceDir)) throw new Error(`delay element sources not found at ${sourceDir}`);
  const sources = readdirSync(sourceDir).filter((f) => f.endsWith('.go') || f === 'go.mod');
  const newest = Math.max(...sources.map((f) => statSync(path.join(sourceDir, f)).mtimeMs));
  if (!options.force && existsSync(binary) && statSync(binary).mtimeMs >= newest) return binary;
  mkdirSync(path.dirname(binary), { recursive: true });
  // CI may run without HOME; Go then needs an explicit build cache. Never fetch a toolchain.
  const env: NodeJS.ProcessEnv = { ...process.env, CGO_ENABLED: '0', GOTOOLCHAIN: 'local' };
  if (!env['GOCACHE'] && !env['HOME'] && !env['XDG_CACHE_HOME']) env['GOCACHE'] = path.join(os.tmpdir(), 'sprint-go-build-cache');
  const r = spawnSync('go', ['build', '-o', binary, '.'], { cwd: sourceDir, env, encoding: 'utf8', timeout: 300000 });
  if (r.error || r.status !== 0) {
    throw new Error(`building the delay element failed (go build in ${sourceDir}): ${r.error?.message ?? r.stderr}`);
  }
  return binary;
}

/** Starts the element, waits until its TUN is attached, then installs the steering routes. */
export async function startDelayElement(options: StartDelayOptions): Promise<DelayElement> {
  const binary = options.binary ?? buildDelayElement();
  if (!existsSync(binary)) throw new Error(`delay element binary not found: ${binary}`);
  const child = options.tracker.spawn(
    options.routerNs,
    binary,
    ['-dev', options.tunDev, '-down-ms', String(options.downMs), '-up-ms', String(options.upMs), '-downstream', options.downstreamSubnet],
    { stdio: ['ignore', 'pipe', 'pipe'], label: 'sprint-delay' },
  );
  const pid = child.pid as number;
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (s: string) => {
    stdout += s;
  });
  await waitForReady(
    child,
    () => stdout,
    options.readyTimeoutMs ?? 5000,
    () => options.tracker.get(pid)?.stderrTail() ?? '',
  );

  const ns = options.routerNs;
  runSync('ip', ['-n', ns, 'link', 'set', options.tunDev, 'up']);
  runSync('ip', ['netns', 'exec', ns, 'sysctl', '-q', '-w', `net.ipv4.conf.${options.tunDev}.rp_filter=0`]);
  runSync('ip', ['-n', ns, 'route', 'add', 'default', 'dev', options.tunDev, 'table', DELAY_TABLE]);
  for (const dev of options.ingressDevs) {
    runSync('ip', ['-n', ns, 'rule', 'add', 'iif', dev, 'lookup', DELAY_TABLE, 'priority', '100']);
  }

  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopped: Promise<DelayStats[]> | null = null;
  return {
    pid,
    tunDev: options.tunDev,
    downMs: options.downMs,
    upMs: options.upMs,
    stop: () => {
      stopped ??= (async () => {
        await options.tracker.stop(pid);
        await exited;
        return parseDelayStats(stdout);
      })();
      return stopped;
    },
  };
}

/** Extracts the JSON statistics lines from the element's stdout. */
export function parseDelayStats(stdout: string): DelayStats[] {
  const out: DelayStats[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    out.push(JSON.parse(line) as DelayStats);
  }
  return out;
}

function waitForReady(child: ChildProcess, stdout: () => string, timeoutMs: number, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`delay element did not become ready within ${timeoutMs} ms: ${stderr().trim() || 'no output'}`));
    }, timeoutMs);
    const onData = (): void => {
      if (/^ready /m.test(stdout())) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`delay element exited (code ${code}) before becoming ready: ${stderr().trim() || 'no output'}`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.removeListener('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}
