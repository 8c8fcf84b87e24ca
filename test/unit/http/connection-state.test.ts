// The connection state machine and its pipelining verdict (paper §IV-B1,
// pipelining faults): a keep-alive limit is not a verdict, closing after
// the first response with requests queued is; HTTP/1.0 is.

import { Http1Connection } from '../../../src/http/connection-state';

const h11 = { httpVersion: '1.1' as const, keepAlive: true, status: 200 };

test('open → draining on Connection: close → closed; no writes after draining', () => {
  const c = new Http1Connection();
  c.requestWritten();
  c.requestWritten();
  expect(c.responseHead(h11, 1)).toBeNull();
  c.responseComplete();
  expect(c.responseHead({ ...h11, keepAlive: false }, 0)).toBeNull(); // 2nd response, nothing queued: a limit
  expect(c.state).toBe('draining');
  expect(c.whyDraining).toBe('server-close');
  expect(() => c.requestWritten()).toThrow(/cannot write a request while draining \(server-close\)/);
  c.responseComplete();
  expect(c.closed(0, true)).toBeNull();
  expect(c.state).toBe('closed');
  expect(c.pipelineUnsafe).toBeNull();
});

test('Connection: close on the first response with requests queued: unsafe', () => {
  const c = new Http1Connection();
  const r = c.responseHead({ ...h11, keepAlive: false }, 2);
  expect(r?.code).toBe('closes-after-each-response');
  expect(c.pipelineUnsafe).toBe(r);
});

test('HTTP/1.0: unsafe; only the first reason is kept', () => {
  const c = new Http1Connection();
  expect(c.responseHead({ httpVersion: '1.0', keepAlive: false, status: 200 }, 3)?.code).toBe('http-1.0');
  expect(c.markUnsafe({ code: 'mismatched-response', message: 'x' })).toBeNull();
  expect(c.pipelineUnsafe?.code).toBe('http-1.0');
  expect(c.whyDraining).toBe('pipeline-unsafe');
});

test('server hangs up after its first response with requests pending: unsafe; after several: not', () => {
  const a = new Http1Connection();
  a.responseComplete();
  expect(a.closed(2, true)?.code).toBe('closes-after-each-response');
  const b = new Http1Connection();
  b.responseComplete();
  b.responseComplete();
  expect(b.closed(2, true)).toBeNull();
  const c = new Http1Connection();
  expect(c.closed(2, true)).toBeNull(); // nothing answered: e.g. an idle-timeout race, just retry
});
