/**
 * The Sprint modes this build can offer, in preference order, for the
 * resolver. `stock` needs no provider: it is the fallback that always works.
 */
import type { ModeProvider } from './resolve-mode';
import { sprintXProvider } from '../sprintx/capability';
import { sprintProvider, type TransportChoice } from '../sprint/capability';
import { detectExtension } from '../sprint/extension-transport';
import { detectProtocol } from '../sprint/protocol-detect';

export function modeProviders(transport: TransportChoice = 'auto'): ModeProvider[] {
  return [sprintProvider(transport, detectExtension, detectProtocol), sprintXProvider];
}
