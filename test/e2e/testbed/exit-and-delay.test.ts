// Root-only checks of the testbed's clean-up on every exit path and of the
// delay element (needs `npm run build:node`; builds the Go delay element on
// demand):
//   - a harness process that is sent SIGTERM, or dies of an uncaught error,
//     leaves none of its namespaces or processes behind;
//   - destroy() is idempotent;
//   - with 20 ms each way, TCP connects from the client take at least the
//     40 ms round trip the delay element adds (printed: the measured figure);
//   - each end of both links holds its peer's MAC as a permanent neighbour
//     entry (ARP never has to cross the bottleneck queue).

import { spawn } from 'child_process';
import { existsSync } from 'fs';
import { measureConnectMs } from '../../../demo/testbed/bulk-vs-sequential';
import { summarize } from '../../../demo/testbed/metrics';
import { distScript, startOriginProcess } from '../../../demo/testbed/origin-process';
import { preflight } from '../../../demo/testbed/preflight';
import { ADDRESSES } from '../../../demo/testbed/names';
import { isRunning } from '../../../demo/testbed/processes';
import { createTestbed } from '../../../demo/testbed/topology';

beforeAll(() => {
  const pf = preflight({ capture: false, delay: true });
  if (!pf.ok) throw new Error(`testbed preflight failed:\n  - ${pf.problems.join('\n  - ')}`);
  if (!existsSync(distScript('demo/testbed/topology.js'))) throw new Error('dist/ is not built: run npm run build:node first');
});

/** A harness process that builds a testbed, starts `sleep` in the client namespace, reports, then waits or throws. */
function harnessScript(mode: 'wait' | 'throw'): string {
  return `
const { createTestbed } = require(${JSON.stringify(distScript('demo/testbed/topology.js'))});
createTestbed({ rateBitsPerSec: 3e6, queueBytes: 262144 }).then((tb) => {
  const child = tb.exec(tb.clientNs, 'sleep', ['600']);
  console.log(JSON.stringify({ namespaces: [tb.serverNs, tb.routerNs, tb.clientNs], pid: child.pid }));
  ${mode === 'throw' ? "setTimeout(() => { throw new Error('harness crashed on purpose'); }, 300);" : 'setInterval(() => undefined, 1000);'}
});`;
}

async function runHarness(
  mode: 'wait' | 'throw',
  signal?: NodeJS.Signals,
): Promise<{
  info: { namespaces: string[]; pid: number };
  code: number | null;
  sig: NodeJS.Signals | null;
  stderr: string;
  aliveBefore: boolean;
}> {
  const child = spawn(process.execPath, ['-e', harnessScript(mode)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, sig })),
  );
  const deadline = Date.now() + 20000;
  while (!stdout.includes('\n') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  if (!stdout.includes('\n')) {
    child.kill('SIGKILL');
    throw new Error(`harness did not report: ${stderr}`);
  }
  const info = JSON.parse(stdout.split('\n')[0] as string) as { namespaces: string[]; pid: number };
  const aliveBefore = info.namespaces.every((ns) => existsSync(`/var/run/netns/${ns}`)) && isRunning(info.pid);
  if (signal) child.kill(signal);
  const { code, sig } = await exited;
  return { info, code, sig, stderr, aliveBefore };
}

describe('testbed clean-up on exit paths (root)', () => {
  it('removes namespaces and processes when the harness gets SIGTERM, and still dies of it', async () => {
    const r = await runHarness('wait', 'SIGTERM');
    expect(r.aliveBefore).toBe(true);
    expect(r.sig).toBe('SIGTERM');
    for (const ns of r.info.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
    expect(isRunning(r.info.pid)).toBe(false);
  }, 60000);

  it('removes them when the harness dies of an uncaught error', async () => {
    const r = await runHarness('throw');
    expect(r.aliveBefore).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/harness crashed on purpose/);
    for (const ns of r.info.namespaces) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
    expect(isRunning(r.info.pid)).toBe(false);
  }, 60000);
});

describe('delay element (root)', () => {
  it('adds the configured propagation delay in both directions', async () => {
    const tb = await createTestbed({ rateBitsPerSec: 10e6, queueBytes: 262144, delayMs: { down: 20, up: 20 } });
    try {
      expect(tb.delay).not.toBeNull();
      const listener = await startOriginProcess(tb, {
        port: 9000,
        command: {
          command: process.execPath,
          args: [
            '-e',
            `require('net').createServer((s) => s.end()).listen(9000, '${tb.serverAddr}', () => console.log('http://${tb.serverAddr}:9000/'))`,
          ],
        },
      });
      const samples = await measureConnectMs(tb, listener.port, 10);
      const s = summarize(samples);
      process.stdout.write(
        `connect RTT through 20+20 ms delay: median ${s.median.toFixed(2)} ms, min ${s.min.toFixed(2)}, max ${s.max.toFixed(2)}\n`,
      );
      expect(s.min).toBeGreaterThanOrEqual(39.5);
      await listener.stop();
      const stats = await tb.delay!.stop();
      expect(stats.map((d) => d.direction).sort()).toEqual(['down', 'up']);
      for (const d of stats) {
        // Each completed connect put its SYN through 'up' and its SYN-ACK through
        // 'down'; the closing FIN/ACKs may still be in flight when stop() runs.
        expect(d.sent).toBeGreaterThanOrEqual(10);
        expect(d.dropped).toBe(0);
      }
    } finally {
      await tb.destroy();
      await tb.destroy(); // idempotent
    }
    expect(tb.destroyed).toBe(true);
    for (const ns of [tb.serverNs, tb.routerNs, tb.clientNs]) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  }, 120000);
});

describe('neighbours (root)', () => {
  it("pins each veth's peer as a permanent neighbour with the peer's MAC", async () => {
    const tb = await createTestbed({ rateBitsPerSec: 3e6, queueBytes: 262144 });
    try {
      const n = tb.names;
      const json = async (ns: string, args: string[]): Promise<Array<Record<string, unknown>>> =>
        JSON.parse(await tb.run(ns, 'ip', ['-j', ...args], 5000)) as Array<Record<string, unknown>>;
      const ends: Array<[string, string, string]> = [
        [n.serverNs, n.serverDev, ADDRESSES.server],
        [n.routerNs, n.routerServerDev, ADDRESSES.routerServerSide],
        [n.routerNs, n.routerClientDev, ADDRESSES.routerClientSide],
        [n.clientNs, n.clientDev, ADDRESSES.client],
      ];
      const peers: Array<[number, number]> = [
        [0, 1],
        [1, 0],
        [2, 3],
        [3, 2],
      ];
      for (const [i, j] of peers) {
        const [ns, dev] = ends[i]!;
        const [peerNs, peerDev, peerAddr] = ends[j]!;
        const mac = (await json(peerNs, ['link', 'show', 'dev', peerDev]))[0]?.['address'];
        expect(typeof mac).toBe('string');
        const entries = await json(ns, ['neigh', 'show', 'dev', dev]);
        expect(entries).toContainEqual(expect.objectContaining({ dst: peerAddr, lladdr: mac, state: ['PERMANENT'] }));
      }
    } finally {
      await tb.destroy();
    }
    for (const ns of [tb.serverNs, tb.routerNs, tb.clientNs]) expect(existsSync(`/var/run/netns/${ns}`)).toBe(false);
  }, 60000);
});
