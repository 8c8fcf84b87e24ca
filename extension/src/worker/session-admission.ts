/**
 * Which page sessions the service worker admits: at most LIMITS.maxSessions
 * at once (all tabs, including those still in their handshake) and at most
 * LIMITS.maxSessionsPerTab per tab, so one tab (however many frames or
 * documents it opens) cannot take the slots every other tab needs. The socket
 * host's connection limit (extension/host/config.go MaxConnections) is sized
 * from these: maxSessions × maxOriginsPerSession, one connection per origin
 * lane, so admitted sessions never run the host out of connections.
 */
import { LIMITS } from '../../../player/sprint/extension/protocol';

export type Admission = { ok: true } | { ok: false; reason: string };

export class SessionAdmission {
  private readonly perTab = new Map<number, number>();
  private total = 0;

  /** Sessions admitted and not yet released. */
  get size(): number {
    return this.total;
  }

  /** Takes a slot for a session of tab `tabId`, or says why not (the caller refuses with too-many-sessions). */
  admit(tabId: number): Admission {
    const inTab = this.perTab.get(tabId) ?? 0;
    if (inTab >= LIMITS.maxSessionsPerTab)
      return { ok: false, reason: `at most ${LIMITS.maxSessionsPerTab} Sprint sessions per tab may be open at once` };
    if (this.total >= LIMITS.maxSessions) return { ok: false, reason: `at most ${LIMITS.maxSessions} Sprint sessions may be open at once` };
    this.perTab.set(tabId, inTab + 1);
    this.total += 1;
    return { ok: true };
  }

  /** Frees a slot taken by admit(tabId); call exactly once per successful admit. */
  release(tabId: number): void {
    const inTab = this.perTab.get(tabId) ?? 0;
    if (inTab <= 0) return;
    if (inTab === 1) this.perTab.delete(tabId);
    else this.perTab.set(tabId, inTab - 1);
    this.total -= 1;
  }
}
