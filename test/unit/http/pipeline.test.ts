// The pipelined HTTP/1.1 client of Sprint's trains (paper §IV-B1) over a fake
// transport played by the test: requests are written back to back before any
// response; responses reach their requests in order at every split of the
// byte stream; a close mid-train fails exactly the unanswered requests as
// retryable; servers that do not pipeline correctly are reported.

import { PipelinedClient, type ConnectionClosed, type RequestFailure, type ResponseResult } from '../../../src/http/pipeline';
import type { PipelineUnsafeReason } from '../../../src/http/connection-state';
import { HttpRequestError } from '../../../src/http/errors';
import { serializeRequest, type HttpRequest } from '../../../src/http/request';
import { bytes, cutAt, FakeTransport, partial, resp, text } from './helpers';

const WHOLE = 'abcdefghijklmnopqrstuvwxyz0123456789';

interface Outcome {
  head: number | null;
  body: string;
  pieceTimes: number[];
  complete: ResponseResult | null;
  failed: RequestFailure | null;
}

function setup() {
  const transport = new FakeTransport();
  const unsafe: PipelineUnsafeReason[] = [];
  const closed: ConnectionClosed[] = [];
  const client = new PipelinedClient(transport, { onPipelineUnsafe: (r) => unsafe.push(r), onClosed: (c) => closed.push(c) });
  transport.receiver = client;
  const outcomes: Outcome[] = [];
  const send = (req: Partial<HttpRequest> & { target: string }) => {
    const o: Outcome = { head: null, body: '', pieceTimes: [], complete: null, failed: null };
    outcomes.push(o);
    const handle = client.enqueue(
      { host: 'origin.test', userAgent: 'test', ...req },
      {
        onHead: (h) => (o.head = h.status),
        onBody: (p, at) => {
          o.body += text(p);
          o.pieceTimes.push(at);
        },
        onComplete: (r) => (o.complete = r),
        onFailed: (f) => (o.failed = f),
      },
    );
    return handle;
  };
  return { transport, client, unsafe, closed, outcomes, send };
}

const ranges = [
  { first: 0, last: 9 },
  { first: 10, last: 19 },
  { first: 20, last: 35 },
];

describe('pipelining', () => {
  test('three requests are written back to back before any response, then answered in order', () => {
    const { transport, client, outcomes, send } = setup();
    ranges.forEach((range) => send({ target: '/v.mp4', range }));
    expect(transport.writes).toHaveLength(3);
    expect(transport.written).toBe(
      ranges.map((range) => text(serializeRequest({ host: 'origin.test', userAgent: 'test', target: '/v.mp4', range }))).join(''),
    );
    expect(client.inFlight).toBe(3);
    expect(client.inFlightBytes).toBe(36);
    transport.send(partial(WHOLE, 0, 9) + partial(WHOLE, 10, 19));
    transport.send(partial(WHOLE, 20, 35));
    expect(outcomes.map((o) => [o.head, o.body, o.complete?.bodyBytes, o.failed])).toEqual([
      [206, WHOLE.slice(0, 10), 10, null],
      [206, WHOLE.slice(10, 20), 10, null],
      [206, WHOLE.slice(20, 36), 16, null],
    ]);
    expect(client.inFlight).toBe(0);
    expect(client.canEnqueue).toBe(true);
    expect(transport.closeCalls).toBe(0);
  });

  test('same outcome at every split point of the response stream', () => {
    const stream = bytes(
      partial(WHOLE, 0, 9) +
        partial(WHOLE, 10, 19, { 'Transfer-Encoding': 'chunked' })
          .replace(/Content-Length: 10\r\n/, '')
          .replace(/\r\n\r\n.*$/s, '\r\n\r\n4;x=y\r\nklmn\r\n6\r\nopqrst\r\n0\r\n\r\n') +
        partial(WHOLE, 20, 35),
    );
    for (let k = 0; k <= stream.length; k += 1) {
      const { transport, outcomes, send } = setup();
      ranges.forEach((range) => send({ target: '/v.mp4', range }));
      for (const part of cutAt(stream, [k])) transport.send(part);
      expect({ k, got: outcomes.map((o) => [o.body, o.complete !== null, o.failed]) }).toEqual({
        k,
        got: [
          [WHOLE.slice(0, 10), true, null],
          [WHOLE.slice(10, 20), true, null],
          [WHOLE.slice(20, 36), true, null],
        ],
      });
    }
  });

  test('body pieces carry the receive time of their bytes; inFlightBytes counts down', () => {
    const { transport, client, outcomes, send } = setup();
    send({ target: '/v.mp4', range: { first: 0, last: 9 } });
    const r = partial(WHOLE, 0, 9);
    transport.send(r.slice(0, r.length - 6)); // t=1: head + 4 body bytes
    expect(client.inFlightBytes).toBe(6);
    transport.send(r.slice(r.length - 6)); // t=2
    expect(outcomes[0]?.pieceTimes).toEqual([1, 2]);
    expect(outcomes[0]?.complete).toMatchObject({ headAtMs: 1, endAtMs: 2, bodyBytes: 10 });
  });

  test('1xx skipped, HEAD, 204 and 304 in one train', () => {
    const { transport, outcomes, send } = setup();
    send({ target: '/a' });
    send({ target: '/b', method: 'HEAD' });
    send({ target: '/c' });
    send({ target: '/d' });
    transport.send(
      'HTTP/1.1 100 Continue\r\n\r\n' +
        resp('one') +
        'HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n' +
        'HTTP/1.1 204 No Content\r\n\r\n' +
        'HTTP/1.1 304 Not Modified\r\nContent-Length: 77\r\n\r\n',
    );
    expect(outcomes.map((o) => [o.head, o.body, o.complete?.bodyBytes, o.failed])).toEqual([
      [200, 'one', 3, null],
      [200, '', 0, null],
      [204, '', 0, null],
      [304, '', 0, null],
    ]);
  });
});

describe('the connection closes mid-train', () => {
  test('answers 2 of 4 then EOF: 2 complete, 2 retryable failures listed in order; not unsafe', () => {
    const { transport, client, unsafe, closed, outcomes, send } = setup();
    const handles = [0, 1, 2, 3].map((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(resp('s0') + resp('s1'));
    transport.end('eof', 'FIN');
    expect(outcomes.map((o) => [o.complete !== null, o.failed?.code, o.failed?.retryable])).toEqual([
      [true, undefined, undefined],
      [true, undefined, undefined],
      [false, 'connection-closed', true],
      [false, 'connection-closed', true],
    ]);
    expect(closed).toHaveLength(1);
    expect(closed[0]?.retry).toEqual([handles[2], handles[3]]);
    expect(closed[0]?.retry.map((h) => h.request.target)).toEqual(['/seg-2.m4s', '/seg-3.m4s']);
    expect(closed[0]).toMatchObject({ kind: 'eof', answered: 2, pipelineUnsafe: null });
    expect(unsafe).toEqual([]);
    expect(client.canEnqueue).toBe(false);
    expect(() => send({ target: '/late' })).toThrow(/does not accept requests: it is closed/);
  });

  test('keep-alive limit: the 2nd response carries Connection: close; the client closes and fails the rest at once', () => {
    const { transport, closed, outcomes, send, unsafe } = setup();
    [0, 1, 2, 3].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(resp('s0') + resp('s1', { Connection: 'close' }));
    expect(outcomes.map((o) => o.failed?.code ?? 'ok')).toEqual(['ok', 'ok', 'connection-closed', 'connection-closed']);
    expect(outcomes[2]?.failed?.message).toMatch(/response #1 closes the connection \(Connection: close\) with 2 request\(s\) unanswered/);
    expect(transport.closeCalls).toBe(1);
    expect(closed[0]?.retry).toHaveLength(2);
    expect(unsafe).toEqual([]);
    transport.end('local'); // the transport's late close is ignored
    expect(closed).toHaveLength(1);
  });

  test('a partial response is failed (retryable, bytes reported), never completed', () => {
    const { transport, closed, outcomes, send } = setup();
    [0, 1, 2].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    const third = resp('0123456789');
    transport.send(resp('s0') + third.slice(0, third.length - 4));
    transport.end('error', 'ECONNRESET');
    expect(outcomes[1]?.body).toBe('012345');
    expect(outcomes[1]?.complete).toBeNull();
    expect(outcomes[1]?.failed).toEqual({
      code: 'connection-error',
      message: expect.stringMatching(/ECONNRESET/),
      retryable: true,
      bodyBytesReceived: 6,
    });
    expect(outcomes[2]?.failed).toMatchObject({ code: 'connection-error', retryable: true, bodyBytesReceived: 0 });
    expect(closed[0]?.retry.map((h) => h.seq)).toEqual([1, 2]);
  });

  test('close() fails in-flight requests as closed-locally, retryable', () => {
    const { transport, client, outcomes, send } = setup();
    send({ target: '/a' });
    send({ target: '/b' });
    transport.send(resp('A'));
    client.close();
    expect(outcomes.map((o) => o.failed?.code ?? 'ok')).toEqual(['ok', 'closed-locally']);
    expect(transport.closeCalls).toBe(1);
  });

  test('drain(): no new requests, closes after the in-flight ones complete', () => {
    const { transport, client, closed, outcomes, send } = setup();
    send({ target: '/a' });
    client.drain();
    expect(client.canEnqueue).toBe(false);
    expect(transport.closeCalls).toBe(0);
    transport.send(resp('A'));
    expect(outcomes[0]?.complete).not.toBeNull();
    expect(transport.closeCalls).toBe(1);
    expect(closed[0]).toMatchObject({ kind: 'local', retry: [] });
  });
});

describe('servers that do not pipeline correctly', () => {
  test('HTTP/1.0 server: pipelineUnsafe, first response delivered, the rest retryable', () => {
    const { transport, unsafe, closed, outcomes, send } = setup();
    [0, 1, 2].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(resp('s0', {}, 200, '1.0'));
    expect(unsafe.map((u) => u.code)).toEqual(['http-1.0']);
    expect(outcomes.map((o) => o.failed?.code ?? 'ok')).toEqual(['ok', 'connection-closed', 'connection-closed']);
    expect(closed[0]?.pipelineUnsafe?.code).toBe('http-1.0');
  });

  test('HTTP/1.0 read-until-close body: completed at EOF, pipelineUnsafe', () => {
    const { transport, unsafe, outcomes, send } = setup();
    send({ target: '/a' });
    send({ target: '/b' });
    transport.send('HTTP/1.0 200 OK\r\n\r\nbody until EOF');
    transport.end('eof');
    expect(outcomes[0]).toMatchObject({ body: 'body until EOF', failed: null });
    expect(outcomes[0]?.complete?.bodyBytes).toBe(14);
    expect(outcomes[1]?.failed).toMatchObject({ retryable: true });
    expect(unsafe.map((u) => u.code)).toEqual(['http-1.0']);
  });

  test('Connection: close on the first response while more are queued: closes-after-each-response', () => {
    const { transport, unsafe, outcomes, send } = setup();
    [0, 1, 2].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(resp('s0', { Connection: 'close' }));
    expect(unsafe.map((u) => u.code)).toEqual(['closes-after-each-response']);
    expect(outcomes.map((o) => o.failed?.retryable ?? 'ok')).toEqual(['ok', true, true]);
  });

  test('EOF right after the first response with requests queued: closes-after-each-response', () => {
    const { transport, unsafe, send } = setup();
    [0, 1].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(resp('s0'));
    transport.end('eof');
    expect(unsafe.map((u) => u.code)).toEqual(['closes-after-each-response']);
  });

  test('mismatched Content-Range (responses swapped): pipelineUnsafe, the head request fails retryable, nothing wrong delivered', () => {
    const { transport, unsafe, closed, outcomes, send } = setup();
    ranges.forEach((range) => send({ target: '/v.mp4', range }));
    transport.send(partial(WHOLE, 10, 19) + partial(WHOLE, 0, 9));
    expect(unsafe.map((u) => u.code)).toEqual(['mismatched-response']);
    expect(unsafe[0]?.message).toMatch(/response #0: Content-Range "bytes 10-19\/36" does not answer the request for bytes 0-9/);
    expect(outcomes.map((o) => [o.head, o.body, o.complete, o.failed?.code, o.failed?.retryable])).toEqual([
      [null, '', null, 'mismatched-response', true],
      [null, '', null, 'pipeline-aborted', true],
      [null, '', null, 'pipeline-aborted', true],
    ]);
    expect(transport.closeCalls).toBe(1);
    expect(closed[0]?.retry).toHaveLength(3);
  });

  test('206 to a request without Range: mismatched', () => {
    const { transport, unsafe, outcomes, send } = setup();
    send({ target: '/a' });
    transport.send(partial(WHOLE, 0, 9));
    expect(unsafe.map((u) => u.code)).toEqual(['mismatched-response']);
    expect(outcomes[0]?.failed?.code).toBe('mismatched-response');
  });

  test('unsolicited bytes on an idle connection: pipelineUnsafe', () => {
    const { transport, unsafe, closed, send, outcomes } = setup();
    send({ target: '/a' });
    transport.send(`${resp('A')}HTTP/1.1 200 OK\r\n`);
    expect(outcomes[0]?.complete).not.toBeNull();
    expect(unsafe.map((u) => u.code)).toEqual(['unsolicited-bytes']);
    expect(closed[0]?.kind).toBe('protocol');
  });
});

describe('bad responses and bad callers', () => {
  test('a malformed response fails its request (not retryable) and the rest (retryable)', () => {
    const { transport, closed, outcomes, send, unsafe } = setup();
    [0, 1, 2].forEach((i) => send({ target: `/seg-${i}.m4s` }));
    transport.send(`${resp('s0')}HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n`);
    expect(outcomes.map((o) => [o.failed?.code ?? 'ok', o.failed?.retryable])).toEqual([
      ['ok', undefined],
      ['malformed-response', false],
      ['pipeline-aborted', true],
    ]);
    expect(outcomes[1]?.failed?.message).toMatch(
      /Content-Length "1x" is not a decimal number \(response #1, at byte 57 of the connection\)/,
    );
    expect(closed[0]?.retry.map((h) => h.seq)).toEqual([2]);
    expect(unsafe).toEqual([]);
    expect(transport.closeCalls).toBe(1);
  });

  test('Content-Encoding gzip: that request fails (not retryable), the train goes on', () => {
    const { transport, client, outcomes, send } = setup();
    send({ target: '/a' });
    send({ target: '/b' });
    transport.send(resp('zzzz', { 'Content-Encoding': 'gzip' }) + resp('B'));
    expect(outcomes.map((o) => [o.failed?.code ?? 'ok', o.body])).toEqual([
      ['unusable-response', ''],
      ['ok', 'B'],
    ]);
    expect(client.canEnqueue).toBe(true);
  });

  test('a chunked 206 whose body is shorter than its Content-Range fails', () => {
    const { transport, outcomes, send } = setup();
    send({ target: '/v', range: { first: 0, last: 9 } });
    transport.send(
      'HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/36\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    );
    expect(outcomes[0]?.failed).toMatchObject({ code: 'unusable-response', retryable: false, bodyBytesReceived: 3 });
    expect(outcomes[0]?.failed?.message).toMatch(/3 body bytes where 10 were announced/);
  });

  test('an invalid request throws HttpRequestError and writes nothing', () => {
    const { transport, client, send } = setup();
    expect(() => send({ target: '/a b' })).toThrow(HttpRequestError);
    expect(transport.writes).toHaveLength(0);
    expect(client.inFlight).toBe(0);
  });

  test('a callback that throws: the error surfaces from onData after the stream is processed', () => {
    const { transport, client, outcomes, send } = setup();
    client.enqueue(
      { host: 'h', userAgent: 'u', target: '/a' },
      {
        onComplete: () => {
          throw new Error('consumer bug');
        },
      },
    );
    send({ target: '/b' });
    expect(() => transport.send(resp('A') + resp('B'))).toThrow(/a callback threw: consumer bug/);
    expect(outcomes[0]?.complete?.bodyBytes).toBe(1); // the second request still completed
  });

  test('re-entrancy: a transport that answers synchronously inside write, and a caller enqueueing from onComplete', () => {
    const { transport, client, outcomes, send } = setup();
    let n = 0;
    transport.onWrite = () => {
      n += 1;
      transport.send(resp(`r${n}`));
    };
    const chain = (left: number) =>
      client.enqueue(
        { host: 'h', userAgent: 'u', target: `/c${left}` },
        {
          onComplete: () => {
            if (left > 0) chain(left - 1);
          },
        },
      );
    chain(3);
    send({ target: '/last' });
    expect(n).toBe(5);
    expect(outcomes[0]?.body).toBe('r5');
    expect(client.inFlight).toBe(0);
  });
});
