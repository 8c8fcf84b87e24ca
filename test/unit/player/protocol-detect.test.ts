/**
 * Which protocols let a plain page keep a Sprint train on one connection
 * (player/sprint/protocol-detect.ts). The detection itself runs in the
 * browser: test/e2e/sprint-h2.test.ts.
 */
import { isMultiplexed } from '../../../player/sprint/protocol-detect';

describe('isMultiplexed', () => {
  it('counts HTTP/2 and HTTP/3 ALPN ids', () => {
    for (const p of ['h2', 'h2c', 'h3', 'h3-29']) expect(isMultiplexed(p)).toBe(true);
  });
  it('does not count HTTP/1.x, unknown or missing protocols', () => {
    for (const p of ['http/1.1', 'http/1.0', '', 'spdy/3', 'h2x', null, undefined]) expect(isMultiplexed(p)).toBe(false);
  });
});
