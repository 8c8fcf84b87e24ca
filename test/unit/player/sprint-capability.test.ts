// Which transport Sprint's trains get (player/sprint/capability.ts). A page
// forcing `fetch` gets the same protocol detection as `auto`: on HTTP/2 the
// trains share dash.js's connection (the e2e h2-origin test shows it on the
// wire); on HTTP/1.1 they keep a pool of their own.
import { plainRequestPath, RequestPath } from '../../../player/dataplane/request-path';
import { SprintDataPlane } from '../../../player/sprint/sprint-data-plane';
import { sprintProvider, type ProtocolDetector } from '../../../player/sprint/capability';
import type { CheckContext } from '../../../player/dataplane/resolve-mode';

const ctx = {
  manifestUrl: 'https://media.example/m.mpd',
  requests: plainRequestPath(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
  manifest: async () => ({ ok: true, text: '<MPD/>' }),
} as unknown as CheckContext;

const speaks =
  (protocol: string | null): ProtocolDetector =>
  async () => ({ protocol, problem: protocol === null ? 'no timing entry' : null });

describe('sprintProvider', () => {
  it.each([
    ['h2', /^trains over the browser's fetch \(requested; on h2: one multiplexed connection\)$/],
    ['h3', /on h3: one multiplexed connection/],
    ['http/1.1', /^trains over the browser's fetch \(requested\)$/],
    [null, /^trains over the browser's fetch \(requested\)$/],
  ])('forced fetch on %s', async (protocol, reason) => {
    const a = await sprintProvider('fetch', null, speaks(protocol)).check(ctx);
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    expect(a.reason).toMatch(reason);
    a.plane.destroy();
  });

  it('auto without the extension: Sprint on fetch over h2, none over HTTP/1.1', async () => {
    const noExtension = async () => ({ ok: false as const, reason: 'no extension' });
    const h2 = await sprintProvider('auto', noExtension, speaks('h2')).check(ctx);
    expect(h2).toMatchObject({ ok: true, reason: expect.stringMatching(/fetch on h2/) });
    if (h2.ok) h2.plane.destroy();
    const h1 = await sprintProvider('auto', noExtension, speaks('http/1.1')).check(ctx);
    expect(h1).toMatchObject({ ok: false, reason: expect.stringMatching(/speaks http\/1\.1, not HTTP\/2/) });
  });
  it("auto with the extension, when the page's interceptors add a header: fetch on h2, no Sprint over HTTP/1.1", async () => {
    let closed = 0;
    const extension = async () => ({
      ok: true as const,
      info: 'test',
      transport: { name: 'extension', carriesPageHeaders: false, request: () => ({ cancel: () => undefined }), close: () => void closed++ },
    });
    const withHeader: CheckContext = {
      ...ctx,
      requests: new RequestPath({
        interceptors: () => [async (r) => ({ ...r, headers: { ...r.headers, Authorization: 'Bearer x' } })],
        withCredentials: () => false,
      }),
    };
    const h2 = await sprintProvider('auto', extension, speaks('h2')).check(withHeader);
    expect(h2).toMatchObject({
      ok: true,
      reason: expect.stringMatching(/fetch on h2 .*headers Authorization, which the extension's sockets cannot send/),
    });
    if (h2.ok) {
      expect(h2.plane).toBeInstanceOf(SprintDataPlane);
      h2.plane.destroy();
    }
    const h1 = await sprintProvider('auto', extension, speaks('http/1.1')).check(withHeader);
    expect(h1).toMatchObject({ ok: false, reason: expect.stringMatching(/^the page's requests carry headers Authorization/) });
    expect(closed).toBe(2);
    // without interceptors the extension is used
    const plain = await sprintProvider('auto', extension, speaks('http/1.1')).check(ctx);
    expect(plain).toMatchObject({ ok: true, reason: expect.stringMatching(/^trains on extension sockets/) });
    if (plain.ok) plain.plane.destroy();
  });
});
