/**
 * Can Sprint (pipelined trains, paper §IV-B1) run here? Only with a
 * TrainTransport whose connections Sprint controls: the Sprint extension and
 * its socket host. A page may also ask for the fetch transport explicitly
 * (`sprintTransport: 'fetch'`), which leaves connection mapping to the
 * browser: useful over HTTP/2 and for testing the scheduler.
 */
import type { Availability, ModeProvider } from '../dataplane/resolve-mode';
import { FetchTrainTransport } from './fetch-transport';
import { SprintDataPlane } from './sprint-data-plane';
import type { TrainTransport } from './train-transport';

export type TransportChoice = 'extension' | 'fetch';

/** Finds a transport for `choice`; resolves with a reason when there is none. */
export type TransportDetector = (timeoutMs: number) => Promise<{ ok: true; transport: TrainTransport; info: string } | { ok: false; reason: string }>;

export function sprintProvider(choice: TransportChoice, detectExtension: TransportDetector | null): ModeProvider {
  return {
    mode: 'sprint',
    async check(): Promise<Availability> {
      if (choice === 'fetch') {
        return { ok: true, plane: new SprintDataPlane(new FetchTrainTransport()), reason: 'trains over the browser\'s fetch (requested)' };
      }
      if (!detectExtension) return { ok: false, reason: 'the Sprint extension transport is not part of this build' };
      const found = await detectExtension(1500);
      if (!found.ok) return { ok: false, reason: found.reason };
      return { ok: true, plane: new SprintDataPlane(found.transport), reason: `trains on extension sockets (${found.info})` };
    },
  };
}
