// The Sprint browser extension for A/B runs with `sprint` players (paper
// §IV-B1: trains on sockets the extension controls): where the built
// extension and its native socket host are (`npm run extension:install`
// builds dist/extension/unpacked and dist/extension/host/sprint-host), and
// how a run's fresh Chromium profile gets them — the host manifest in
// <user-data-dir>/NativeMessagingHosts/ (browser-facts.md: with a custom
// --user-data-dir that is the only place searched) and `--load-extension`.
// When a plan has a sprint (or auto) player, every player run of the plan
// loads the extension, so all players run in the same browser set-up.

import { existsSync, mkdirSync, writeFileSync } from 'fs';
import * as path from 'path';
import { extensionIdFromManifest } from '../../extension/install/extension-id';
import { hostManifest, manifestFileName } from '../../extension/install/host-manifest';
import { paths } from '../../extension/install/install';
import { repoRoot } from '../testbed/delay-element';
import type { Plan } from './plan';

export interface SprintExtension {
  /** The unpacked extension directory. */
  readonly unpacked: string;
  /** The native socket host binary. */
  readonly hostBinary: string;
  readonly extensionId: string;
}

/** True when some player of the plan may use the extension (mode sprint or auto) without a fetch transport (its own query first, then --page-query). */
export function planNeedsExtension(plan: Plan, pageQuery: string): boolean {
  const global = new URLSearchParams(pageQuery).get('transport');
  return plan.variants.some((v) =>
    v.players.some(
      (p) => (p.mode === 'sprint' || p.mode === 'auto') && (new URLSearchParams(p.query ?? '').get('transport') ?? global) !== 'fetch',
    ),
  );
}

/** The built extension and host, or the problems that prevent using them. */
export function findSprintExtension(root: string = repoRoot()): { extension: SprintExtension | null; problems: string[] } {
  const p = paths(root);
  const problems: string[] = [];
  if (!existsSync(path.join(p.unpacked, 'manifest.json')))
    problems.push(`the Sprint extension is not built (${p.unpacked}): run npm run extension:install`);
  if (!existsSync(p.hostBinary)) problems.push(`the Sprint socket host is not built (${p.hostBinary}): run npm run extension:install`);
  let extensionId = '';
  try {
    extensionId = extensionIdFromManifest(p.manifest);
  } catch (err) {
    problems.push(`cannot read the extension ID: ${(err as Error).message}`);
  }
  if (problems.length > 0) return { extension: null, problems };
  return { extension: { unpacked: p.unpacked, hostBinary: p.hostBinary, extensionId }, problems };
}

/** Registers the socket host in a fresh profile; returns the Chromium flags that load the extension. */
export function prepareProfile(profileDir: string, ext: SprintExtension): string[] {
  const dir = path.join(profileDir, 'NativeMessagingHosts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, manifestFileName()), `${JSON.stringify(hostManifest(ext.hostBinary, ext.extensionId), null, 2)}\n`);
  return [`--load-extension=${ext.unpacked}`];
}
