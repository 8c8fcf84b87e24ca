// Which URLs the Sprint extension will request for a page, and whether the
// socket host may reach a private address for them (extension/src/worker/
// url-policy.ts). The page origin is the browser's, the URL
// the page's: a page may reach loopback/private addresses only when it is
// itself served from that literal host.

import { checkRequestUrl, isPublicLiteral, parsePageOrigin } from '../../../extension/src/worker/url-policy';

const page = { origin: 'https://player.example', hostname: 'player.example' };
const localPage = { origin: 'http://127.0.0.1:8080', hostname: '127.0.0.1' };

describe('checkRequestUrl', () => {
  test('a cross-origin https URL: host, port, TLS, target; fragment dropped; CORS applies', () => {
    const r = checkRequestUrl('https://CDN.example/v/720p/seg%201.m4s?a=1#frag', page);
    expect(r).toEqual({
      ok: true,
      target: {
        href: 'https://cdn.example/v/720p/seg%201.m4s?a=1',
        origin: 'https://cdn.example',
        host: 'cdn.example',
        hostname: 'cdn.example',
        port: 443,
        tls: true,
        target: '/v/720p/seg%201.m4s?a=1',
        sameOrigin: false,
        allowPrivate: false,
      },
    });
  });

  test('same origin and explicit ports', () => {
    expect(checkRequestUrl('https://player.example/a.m4s', page)).toMatchObject({ ok: true, target: { sameOrigin: true, port: 443 } });
    expect(checkRequestUrl('http://cdn.example:8080/a', { origin: 'http://player.example', hostname: 'player.example' })).toMatchObject({
      ok: true,
      target: { host: 'cdn.example:8080', port: 8080, tls: false, sameOrigin: false },
    });
    expect(checkRequestUrl('https://player.example:443/a', page)).toMatchObject({ ok: true, target: { sameOrigin: true } });
  });

  test('a page served from a private literal may reach that host (any port), and only that host', () => {
    expect(checkRequestUrl('http://127.0.0.1:9000/media/a.m4s', localPage)).toMatchObject({
      ok: true,
      target: { allowPrivate: true, sameOrigin: false },
    });
    expect(checkRequestUrl('http://10.201.1.2/x', { origin: 'http://10.201.1.2', hostname: '10.201.1.2' })).toMatchObject({
      ok: true,
      target: { allowPrivate: true, sameOrigin: true },
    });
    expect(checkRequestUrl('http://localhost:3000/x', { origin: 'http://localhost:8080', hostname: 'localhost' })).toMatchObject({
      ok: true,
      target: { allowPrivate: true },
    });
    // Alternative spellings the URL parser normalises to the page's host are that host.
    expect(checkRequestUrl('http://2130706433:9000/x', localPage)).toMatchObject({
      ok: true,
      target: { hostname: '127.0.0.1', allowPrivate: true },
    });
  });

  test("a DNS name never gets allowPrivate, even when it is the page's own host (DNS rebinding)", () => {
    expect(checkRequestUrl('https://player.example/a', page)).toMatchObject({ ok: true, target: { allowPrivate: false } });
    expect(checkRequestUrl('http://nas.lan/a', { origin: 'http://nas.lan', hostname: 'nas.lan' })).toMatchObject({
      ok: true,
      target: { allowPrivate: false },
    });
  });

  const refusedAddresses = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://10.0.0.1/x',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://localhost/',
    'http://foo.localhost:8080/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.1.2.3]/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:c0a8:101::1]/',
    'http://[2001:db8::1]/',
  ];
  test.each(refusedAddresses)('refuses %s for a page served elsewhere', (u) => {
    const r = checkRequestUrl(u, page);
    expect(r).toMatchObject({ ok: false, code: 'forbidden-address' });
    if (!r.ok)
      expect(r.reason).toMatch(
        /is a loopback, private or reserved address and the page \(https:\/\/player\.example\) is not served from it/,
      );
  });

  test('a page on one private host cannot reach another private host', () => {
    expect(checkRequestUrl('http://127.0.0.2:9000/x', localPage)).toMatchObject({ ok: false, code: 'forbidden-address' });
    expect(checkRequestUrl('http://localhost:8080/x', localPage)).toMatchObject({ ok: false, code: 'forbidden-address' });
    expect(checkRequestUrl('http://192.168.0.1/x', localPage)).toMatchObject({ ok: false, code: 'forbidden-address' });
  });

  test('public literals are fine', () => {
    expect(checkRequestUrl('https://93.184.216.34/x', page)).toMatchObject({ ok: true, target: { allowPrivate: false } });
    expect(checkRequestUrl('https://[2606:2800:220:1::1]:8080/x', page)).toMatchObject({
      ok: true,
      target: { hostname: '[2606:2800:220:1::1]', host: '[2606:2800:220:1::1]:8080' },
    });
  });

  const refusedUrls: Array<[string, RegExp]> = [
    ['ftp://cdn.example/a', /scheme ftp: is not http: or https:/],
    ['file:///etc/passwd', /scheme file:/],
    ['javascript:alert(1)', /scheme javascript:/],
    ['data:text/plain,hi', /scheme data:/],
    ['ws://cdn.example/a', /scheme ws:/],
    ['https://user:pw@cdn.example/a', /credentials/],
    ['https://user@cdn.example/a', /credentials/],
    ['/relative/path', /not an absolute URL/],
    ['https://cdn.example/a b', /space or control character at index 21/],
    ['https://cdn.example/a\r\nX-Evil: 1', /space or control character/],
    ['https://cdn.example/a\tb', /space or control character/],
    [' https://cdn.example/a', /space or control character at index 0/],
    ['https://cdn.example./a', /ends with a dot/],
    ['https://cdn.example/a|b', /cannot be sent as is/],
    ['https://cdn.example/%zz', /cannot be sent as is/],
  ];
  test.each(refusedUrls)('refuses %s', (u, reason) => {
    const r = checkRequestUrl(u, page);
    expect(r).toMatchObject({ ok: false, code: 'forbidden-url' });
    if (!r.ok) expect(r.reason).toMatch(reason);
  });

  test('length bound', () => {
    expect(checkRequestUrl(`https://cdn.example/${'a'.repeat(4096)}`, page)).toMatchObject({ ok: false, code: 'forbidden-url' });
    expect(checkRequestUrl('', page)).toMatchObject({ ok: false, code: 'forbidden-url' });
  });
});

describe('isPublicLiteral', () => {
  test.each(['8.8.8.8', '93.184.216.34', '[2606:4700::1111]', '[2a00:1450::1]'])('%s is public', (h) =>
    expect(isPublicLiteral(h)).toBe(true),
  );
  test.each([
    '127.0.0.1',
    '10.1.1.1',
    '198.18.0.1',
    '203.0.113.9',
    '[::1]',
    '[fe80::1]',
    '[3fff::1]',
    '[2001::1]',
    '[ff02::1]',
    'localhost',
    'not-an-ip',
    '[zz::1]',
  ])('%s is not public', (h) => expect(isPublicLiteral(h)).toBe(false));
});

describe('parsePageOrigin', () => {
  test('takes the browser-reported origin, or derives it from the URL', () => {
    expect(parsePageOrigin('https://player.example', undefined)).toEqual({ origin: 'https://player.example', hostname: 'player.example' });
    expect(parsePageOrigin(undefined, 'http://127.0.0.1:8080/demo/?x=1')).toEqual({
      origin: 'http://127.0.0.1:8080',
      hostname: '127.0.0.1',
    });
  });
  test('refuses opaque, non-http and malformed origins', () => {
    expect(parsePageOrigin('null', undefined)).toBeNull();
    expect(parsePageOrigin('null', 'data:text/html,hi')).toBeNull();
    expect(parsePageOrigin('chrome-extension://abc', undefined)).toBeNull();
    expect(parsePageOrigin('file://', undefined)).toBeNull();
    expect(parsePageOrigin('https://player.example/path', undefined)).toBeNull();
    expect(parsePageOrigin(undefined, undefined)).toBeNull();
  });
  test('an opaque origin ("null": sandboxed frame, CSP sandbox) is refused even when the URL has a real origin', () => {
    expect(parsePageOrigin('null', 'https://victim.example/uploads/x.html')).toBeNull();
    expect(parsePageOrigin('null', 'http://192.168.1.10/x.html')).toBeNull();
    // Only a sender without any origin falls back to its URL.
    expect(parsePageOrigin(undefined, 'https://victim.example/uploads/x.html')).toEqual({
      origin: 'https://victim.example',
      hostname: 'victim.example',
    });
  });
});

describe('mixed content', () => {
  test('an https: page may not request http: URLs (as the browser refuses mixed content); http: pages and https: URLs are unaffected', () => {
    expect(checkRequestUrl('http://cdn.example/v/a.m4s', page)).toMatchObject({ ok: false, code: 'mixed-content' });
    expect(checkRequestUrl('http://player.example/a.m4s', page)).toMatchObject({ ok: false, code: 'mixed-content' });
    expect(checkRequestUrl('https://cdn.example/v/a.m4s', page)).toMatchObject({ ok: true });
    expect(checkRequestUrl('http://cdn.example/v/a.m4s', { origin: 'http://player.example', hostname: 'player.example' })).toMatchObject({
      ok: true,
    });
    expect(checkRequestUrl('https://cdn.example/v/a.m4s', { origin: 'http://player.example', hostname: 'player.example' })).toMatchObject({
      ok: true,
    });
  });
});
