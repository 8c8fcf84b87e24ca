/**
 * What a page can learn through the Sprint extension that it could not learn
 * with fetch: the real worker Session (extension/src/worker/session.ts) on the
 * real socket host binary (extension/host), with hostile origins on loopback
 * (support/worker-host.ts). The page is http://127.0.0.1:1, so every origin
 * here (another port) is cross-origin and reachable (same literal host).
 *
 * - error texts of responses the page may not read carry no byte of them
 *   (status line, header names, Content-Encoding, Content-Range total, another
 *   site's Access-Control-Allow-Origin): code only, detail in the worker's log;
 * - DNS failures, refused addresses and failed connects all read the same to
 *   the page (`unreachable`);
 * - stats() carries no local address.
 */
import { lookup } from 'dns/promises';
import { hostname } from 'os';
import { REQUEST_ERROR_TEXT, type WorkerMessage } from '../../../player/sprint/extension/protocol';
import { PageSession, answerEach, rawOrigin, useRealHost } from './support/worker-host';

const PAGE = 'http://127.0.0.1:1';

const realHost = useRealHost();

function lastError(msgs: WorkerMessage[]): Extract<WorkerMessage, { type: 'error' }> {
  const e = msgs.find((m) => m.type === 'error');
  if (!e || e.type !== 'error') throw new Error(`no error: ${JSON.stringify(msgs)}`);
  return e;
}

describe('error texts of responses the page may not read carry a code only', () => {
  const cases: Array<{ what: string; secret: string; reply: string; range?: { start: number; end: number } }> = [
    { what: 'a non-HTTP status line (SSH banner)', secret: 'OpenSSH_9.6-SECRET', reply: 'SSH-2.0-OpenSSH_9.6-SECRET Ubuntu\r\n\r\n' },
    {
      what: 'the name of a malformed header field',
      secret: 'X-Intranet-SECRET',
      reply: 'HTTP/1.1 200 OK\r\nX-Intranet-SECRET: a\x01b\r\nContent-Length: 0\r\n\r\n',
    },
    {
      what: 'a Content-Encoding value',
      secret: 'secret-coding',
      reply: 'HTTP/1.1 200 OK\r\nContent-Encoding: secret-coding\r\nContent-Length: 1\r\n\r\nx',
    },
    {
      what: 'a Content-Range total',
      secret: '987654321',
      reply: 'HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-14/987654321\r\nContent-Length: 10\r\n\r\n0123456789',
      range: { start: 0, end: 9 },
    },
    {
      what: "another site's Access-Control-Allow-Origin",
      secret: 'https://intranet-secret.example',
      reply: 'HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: https://intranet-secret.example\r\nContent-Length: 2\r\n\r\nhi',
    },
  ];
  for (const c of cases) {
    test(c.what, async () => {
      const origin = await rawOrigin(answerEach(() => c.reply));
      const page = new PageSession(realHost().host, PAGE);
      try {
        const url = `http://127.0.0.1:${origin.port}/media/a.m4s`;
        let msgs: WorkerMessage[];
        if (c.range) {
          const id = page.send({ type: 'request', url, range: c.range });
          await page.until(() => page.pageMessages.some((m) => 'id' in m && m.id === id && (m.type === 'end' || m.type === 'error')));
          msgs = page.pageMessages.filter((m) => 'id' in m && m.id === id);
        } else {
          msgs = await page.request(url);
        }
        const err = lastError(msgs);
        expect(msgs.map((m) => m.type)).toEqual(['error']);
        expect(err.reason).toBe(REQUEST_ERROR_TEXT[err.code]);
        expect(JSON.stringify(page.pageMessages)).not.toContain(c.secret);
        expect(JSON.stringify(await page.stats())).not.toContain(c.secret);
        expect(page.log.join('\n')).toContain(c.secret);
      } finally {
        page.close();
        await origin.close();
      }
    });
  }

  test('a same-origin page still gets the detail (it may read those bytes anyway)', async () => {
    const origin = await rawOrigin(answerEach(() => 'SSH-2.0-OpenSSH_9.6-SECRET\r\n\r\n'));
    const page = new PageSession(realHost().host, `http://127.0.0.1:${origin.port}`);
    try {
      const err = lastError(await page.request(`http://127.0.0.1:${origin.port}/a`));
      expect(err.reason).toContain('OpenSSH_9.6-SECRET');
    } finally {
      page.close();
      await origin.close();
    }
  });
});

describe('the network map stays hidden: DNS, refused addresses and failed connects read the same', () => {
  test('connect refused, DNS failure and a name resolving to loopback → one code, one text', async () => {
    const closed = await rawOrigin(() => undefined);
    const closedPort = closed.port;
    await closed.close();
    const urls = [`http://127.0.0.1:${closedPort}/a`, 'http://no-such-host.invalid/a'];
    // A DNS name of this machine that resolves to loopback: the host refuses the address (PROTOCOL.md §9).
    const name = hostname();
    const addr = await lookup(name).catch(() => null);
    if (addr && (addr.address.startsWith('127.') || addr.address === '::1') && !name.endsWith('localhost'))
      urls.push(`http://${name}:${closedPort}/a`);
    const page = new PageSession(realHost().host, PAGE);
    try {
      const errors = [];
      for (const url of urls) errors.push(lastError(await page.request(url)));
      for (const e of errors) {
        expect({ code: e.code, reason: e.reason, retryable: e.retryable }).toEqual({
          code: 'unreachable',
          reason: REQUEST_ERROR_TEXT.unreachable,
          retryable: false,
        });
      }
      // The worker's log keeps the detail.
      expect(page.log.join('\n')).toMatch(/connect_failed|dns_failed|forbidden_address/);
    } finally {
      page.close();
    }
  });
});

describe('stats', () => {
  test('carry no local address', async () => {
    const remotePorts: number[] = [];
    const origin = await rawOrigin((sock) => {
      remotePorts.push(sock.remotePort as number);
      answerEach(() => 'HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\n\r\nhi')(sock);
    });
    const page = new PageSession(realHost().host, PAGE);
    try {
      const msgs = await page.request(`http://127.0.0.1:${origin.port}/a`);
      expect(msgs.map((m) => m.type)).toEqual(['head', 'data', 'end']);
      const stats = (await page.stats()) as { origins: Array<Record<string, unknown>> };
      expect(stats.origins).toHaveLength(1);
      expect(stats.origins[0]).not.toHaveProperty('localAddr');
      const text = JSON.stringify(stats);
      expect(remotePorts).toHaveLength(1);
      expect(text).not.toContain(`:${remotePorts[0]}`);
    } finally {
      page.close();
      await origin.close();
    }
  });
});
