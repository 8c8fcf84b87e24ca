// `node dist/demo/harness/build-stamp-cli.js`: the last step of `npm run
// build`; writes dist/build.json (build-stamp.ts) so every A/B run can say
// which commit's player bundles it served.

import * as path from 'path';
import { repoRoot } from '../testbed/delay-element';
import { BUNDLE_SOURCES, writeBuildStamp } from './build-stamp';
import { sourceVersion } from './host-info';

const repo = repoRoot();
// Uncommitted changes count only where the bundles come from (a README or a results folder being edited does not).
const stamp = writeBuildStamp(path.join(repo, 'dist'), sourceVersion(repo, process.env, BUNDLE_SOURCES));
process.stdout.write(
  `dist/build.json: bundle ${stamp.bundle ?? 'none'} from ${stamp.commit ? stamp.commit.slice(0, 12) : 'an unknown commit'}${stamp.dirty ? ' with uncommitted changes' : ''}\n`,
);
