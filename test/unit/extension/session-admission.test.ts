/**
 * Which page sessions the service worker admits (extension/src/worker/
 * session-admission.ts): a per-tab quota so that one tab cannot take every
 * session slot, and the worker-wide bound; and that the socket host's
 * connection limit (extension/host/config.go) is sized from those, so the
 * sessions the worker admits can never run the host out of connections.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { LIMITS } from '../../../player/sprint/extension/protocol';
import { SessionAdmission } from '../../../extension/src/worker/session-admission';

test('a tab gets at most maxSessionsPerTab sessions; other tabs still get theirs; releasing frees the slot', () => {
  const a = new SessionAdmission();
  const results: string[] = [];
  for (let i = 0; i <= LIMITS.maxSessionsPerTab; i += 1) {
    const r = a.admit(1);
    results.push(r.ok ? 'ok' : r.reason);
  }
  expect(results.slice(0, LIMITS.maxSessionsPerTab).every((r) => r === 'ok')).toBe(true);
  expect(results[LIMITS.maxSessionsPerTab]).toMatch(/at most \d+ Sprint sessions per tab/);
  expect(a.admit(2)).toEqual({ ok: true });
  a.release(1);
  expect(a.admit(1)).toEqual({ ok: true });
});

test('the worker-wide bound holds across tabs, and one tab alone can never reach it', () => {
  expect(LIMITS.maxSessions).toBeGreaterThanOrEqual(4 * LIMITS.maxSessionsPerTab);
  const a = new SessionAdmission();
  let admitted = 0;
  for (let tab = 1; tab <= 100; tab += 1) for (let i = 0; i < LIMITS.maxSessionsPerTab; i += 1) if (a.admit(tab).ok) admitted += 1;
  expect(admitted).toBe(LIMITS.maxSessions);
  expect(a.admit(1000)).toMatchObject({ ok: false, reason: expect.stringMatching(/at most \d+ Sprint sessions may be open at once/) });
  expect(a.size).toBe(LIMITS.maxSessions);
});

test("the host's maxConnections covers every admitted session using all its origins", () => {
  const config = readFileSync(join(__dirname, '..', '..', '..', 'extension', 'host', 'config.go'), 'utf8');
  const m = /MaxConnections:\s+(\d+),/.exec(config);
  expect(m).not.toBeNull();
  expect(Number(m?.[1])).toBeGreaterThanOrEqual(LIMITS.maxSessions * LIMITS.maxOriginsPerSession);
});
