/**
 * The Sprint modes this build can offer, in one list the mode resolver reads.
 * `stock` needs no provider: it is the fallback that always works.
 */
import type { ModeProvider } from './resolve-mode';
import { sprintXProvider } from '../sprintx/capability';

export const modeProviders: readonly ModeProvider[] = [sprintXProvider];
