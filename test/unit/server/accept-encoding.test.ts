// Accept-Encoding as the origin reads it: when a page file's gzip copy may be sent.

import { acceptsGzip } from '../../../demo/server/accept-encoding';

describe('acceptsGzip', () => {
  test.each([
    ['gzip, deflate, br, zstd', true], // what Chromium sends
    ['gzip', true],
    ['GZIP', true],
    ['x-gzip', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['gzip;q=0.001', true],
    ['*', true],
    ['identity, *;q=0.5', true],
    [' , gzip', true], // empty members are allowed
    ['gzip;level=9', true], // parameters other than q carry no weight
  ])('%p allows gzip', (value, expected) => {
    expect(acceptsGzip(value)).toBe(expected);
  });

  test.each([
    [undefined, 'the field is absent'],
    ['', 'no coding'],
    ['identity', 'only identity'],
    ['br, deflate', 'gzip not named, no wildcard'],
    ['gzip;q=0', 'refused by weight'],
    ['gzip;q=0.000', 'refused by weight'],
    ['*;q=0.5, gzip;q=0', 'named and refused, whatever the wildcard says'],
    ['*;q=0', 'wildcard refused'],
    ['gzip;q=2', 'a weight above 1 is unreadable'],
    ['gzip;q=0.5000', 'more than three decimals is unreadable'],
    ['gz ip', 'not a token'],
    ['gzip;q=', 'an empty weight is unreadable'],
    ['gzip;q=abc', 'a weight that is not a number is unreadable'],
    ['gzip;q=-1', 'a negative weight is unreadable'],
  ])('%p does not (%s)', (value, _why) => {
    expect(acceptsGzip(value)).toBe(false);
  });
});
