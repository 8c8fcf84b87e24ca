// Unit tests of the mode resolver (player/dataplane/resolve-mode.ts) with
// providers whose answers the test controls: every candidate is checked at
// once, the answer taken is the most preferred that can run, a plane built
// by a check that was not chosen is destroyed, and every "no" is in the reason.

import { plainRequestPath } from '../../../player/dataplane/request-path';
import { resolveMode, type Availability, type ModeProvider } from '../../../player/dataplane/resolve-mode';
import type { DataPlane } from '../../../player/dataplane/data-plane';

interface Probe {
  provider: ModeProvider;
  started: () => boolean;
  answer: (a: Availability) => void;
}

function plane(mode: DataPlane['mode'], destroyed: string[]): DataPlane {
  return { mode, install: () => undefined, destroy: () => void destroyed.push(mode) };
}

/** A provider whose check waits until the test answers it. */
function controlled(mode: ModeProvider['mode']): Probe {
  let started = false;
  let answer: (a: Availability) => void = () => undefined;
  const result = new Promise<Availability>((r) => (answer = r));
  return {
    provider: {
      mode,
      check: () => {
        started = true;
        return result;
      },
    },
    started: () => started,
    answer: (a) => answer(a),
  };
}

const ctx = {
  manifestUrl: 'http://o/m.mpd',
  requests: plainRequestPath(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};
const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('resolveMode', () => {
  it('checks every candidate at once and takes the most preferred that can run, destroying the other plane', async () => {
    const destroyed: string[] = [];
    const sprint = controlled('sprint');
    const sprintx = controlled('sprint-x');
    const resolving = resolveMode('auto', [sprint.provider, sprintx.provider], ctx);
    await flush();
    expect(sprint.started()).toBe(true);
    expect(sprintx.started()).toBe(true);
    sprintx.answer({ ok: true, plane: plane('sprint-x', destroyed), reason: 'ranges work' });
    await flush();
    sprint.answer({ ok: true, plane: plane('sprint', destroyed), reason: 'extension' });
    const r = await resolving;
    expect(r.plane.mode).toBe('sprint');
    await flush();
    expect(destroyed).toEqual(['sprint-x']);
  });

  it('goes down the preference order with every reason, to stock', async () => {
    const sprint = controlled('sprint');
    const sprintx = controlled('sprint-x');
    const resolving = resolveMode('auto', [sprint.provider, sprintx.provider], ctx);
    sprint.answer({ ok: false, reason: 'no extension' });
    sprintx.answer({ ok: false, reason: 'chunked content' });
    const r = await resolving;
    expect(r.plane.mode).toBe('stock');
    expect(r.reason).toBe('fell back to stock: sprint: no extension; sprint-x: chunked content');
  });

  it('a check that throws is a "no" with its message; a missing provider says so', async () => {
    const throwing: ModeProvider = {
      mode: 'sprint',
      check: () => {
        throw new Error('boom');
      },
    };
    const destroyed: string[] = [];
    const sprintx: ModeProvider = {
      mode: 'sprint-x',
      check: async () => ({ ok: true, plane: plane('sprint-x', destroyed), reason: 'ranges work' }),
    };
    const r = await resolveMode('auto', [throwing, sprintx], ctx);
    expect(r.plane.mode).toBe('sprint-x');
    expect(r.reason).toBe('ranges work (sprint: check failed: boom)');
    const r2 = await resolveMode('sprint', [sprintx], ctx);
    expect(r2.reason).toMatch(/sprint: not available in this build/);
  });

  it('a mode asked for by name skips the more preferred ones', async () => {
    const sprint = controlled('sprint');
    const destroyed: string[] = [];
    const sprintx: ModeProvider = {
      mode: 'sprint-x',
      check: async () => ({ ok: true, plane: plane('sprint-x', destroyed), reason: 'ranges work' }),
    };
    const r = await resolveMode('sprint-x', [sprint.provider, sprintx], ctx);
    expect(r.plane.mode).toBe('sprint-x');
    expect(sprint.started()).toBe(false);
    expect((await resolveMode('stock', [sprint.provider, sprintx], ctx)).reason).toBe('stock requested');
  });
});

describe('the manifest, fetched once for all checks', () => {
  it('every check that asks for it gets the one fetch', async () => {
    const http = await import('node:http');
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests += 1;
      res.end('<MPD/>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as import('node:net').AddressInfo;
    const texts: string[] = [];
    const reading = (mode: ModeProvider['mode']): ModeProvider => ({
      mode,
      check: async (c) => {
        const m = await c.manifest();
        texts.push(m.ok ? m.text : m.problem);
        return { ok: false, reason: 'test' };
      },
    });
    try {
      await resolveMode('auto', [reading('sprint'), reading('sprint-x')], { ...ctx, manifestUrl: `http://127.0.0.1:${port}/m.mpd` });
      expect(texts).toEqual(['<MPD/>', '<MPD/>']);
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
