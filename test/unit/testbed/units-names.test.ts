// Unit tests of the testbed's units (tc-style rates and sizes), per-run names
// (unique, within the interface-name limit, recognisable when stale) and
// topology option checking.

import { parseNamespaceName, runNames } from '../../../demo/testbed/names';
import { staleNamespaces } from '../../../demo/testbed/stale';
import { resolveTopology } from '../../../demo/testbed/topology';
import { parseRate, parseSize } from '../../../demo/testbed/units';

describe('units', () => {
  it('parses rates in decimal and sizes in binary units, like tc', () => {
    expect(parseRate('3mbit')).toBe(3_000_000);
    expect(parseRate('1.5mbit')).toBe(1_500_000);
    expect(parseRate('500kbit')).toBe(500_000);
    expect(parseRate('25000000')).toBe(25_000_000);
    expect(parseSize('256kb')).toBe(262144);
    expect(parseSize('1536KB')).toBe(1536 * 1024);
    expect(parseSize('64000')).toBe(64000);
  });

  it('quotes bad input', () => {
    expect(() => parseRate('3 furlongs')).toThrow(/bad rate "3 furlongs"/);
    expect(() => parseRate('0mbit')).toThrow(/greater than zero/);
    expect(() => parseSize('lots')).toThrow(/bad size "lots"/);
  });
});

describe('run names', () => {
  it('carries the pid and a random suffix, within 15 characters per interface', () => {
    const n = runNames(4194304, 'zzzz');
    expect(n.serverNs).toBe('sprint-4194304-zzzz-srv');
    for (const dev of [n.serverDev, n.routerServerDev, n.routerClientDev, n.clientDev, n.tunDev]) {
      expect(dev.length).toBeLessThanOrEqual(15);
    }
    expect(new Set([n.serverDev, n.routerServerDev, n.routerClientDev, n.clientDev, n.tunDev]).size).toBe(5);
    expect(parseNamespaceName(n.routerNs)).toEqual({ pid: 4194304, rand: 'zzzz', role: 'rtr' });
    expect(parseNamespaceName('some-other-ns')).toBeNull();
  });

  it('differs between runs of one process', () => {
    const names = new Set(Array.from({ length: 20 }, () => runNames(1234).id));
    expect(names.size).toBeGreaterThan(15);
  });

  it('rejects a bad suffix', () => {
    expect(() => runNames(1, 'BAD!')).toThrow(/bad random suffix/);
  });
});

describe('topology options', () => {
  it('fills defaults: cubic, slow start after idle on, no delay, 4 ms burst or 5 KB', () => {
    const r = resolveTopology({ rateBitsPerSec: 3e6, queueBytes: 262144 });
    expect(r).toEqual({
      rateBitsPerSec: 3e6,
      queueBytes: 262144,
      burstBytes: 5120,
      congestionControl: 'cubic',
      slowStartAfterIdle: true,
      delayMs: null,
      uplink: null,
    });
    expect(resolveTopology({ rateBitsPerSec: 25e6, queueBytes: 65536 }).burstBytes).toBe(12500);
  });

  it('names the bad option', () => {
    expect(() => resolveTopology({ rateBitsPerSec: 0, queueBytes: 262144 })).toThrow(/rateBitsPerSec/);
    expect(() => resolveTopology({ rateBitsPerSec: 3e6, queueBytes: 100 })).toThrow(/queueBytes/);
    expect(() => resolveTopology({ rateBitsPerSec: 3e6, queueBytes: 262144, congestionControl: 'vegas' as never })).toThrow(
      /congestionControl/,
    );
    expect(() => resolveTopology({ rateBitsPerSec: 3e6, queueBytes: 262144, delayMs: { down: -1, up: 0 } })).toThrow(/delayMs.down/);
  });
});

describe('stale runs', () => {
  it('picks only our namespaces whose PID is dead', () => {
    const names = ['sprint-100-abc-srv', 'sprint-100-abc-rtr', 'sprint-200-x1-cli', 'other-ns', 'sprint-oops'];
    expect(staleNamespaces(names, (pid) => pid === 200)).toEqual(['sprint-100-abc-srv', 'sprint-100-abc-rtr']);
  });
});
