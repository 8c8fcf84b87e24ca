#!/usr/bin/env node
// Runs `gofmt -l` (which must print nothing), `go vet` and `go test` in every Go module of the repository (the
// extension's socket host, the testbed's delay element). A missing Go
// toolchain is an error with instructions, never a silent skip.
//
// For the socket host (extension/host) it also runs, bounded in time:
//   - the package's tests again under the race detector, SPRINT_GO_RACE_COUNT
//     times (default 20; 0 skips), so a timing-dependent test shows up here;
//   - every fuzz target (func Fuzz* in its _test.go files) for
//     SPRINT_FUZZ_TIME each (a Go duration, default 60s; 0 skips). A crash
//     fails the run and Go saves the input under testdata/fuzz/.
const { execFileSync, spawnSync } = require('child_process');
const { existsSync } = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const modules = ['extension/host', 'demo/testbed/delay'].filter((m) => existsSync(path.join(root, m, 'go.mod')));
const HOST = 'extension/host';
const raceCount = process.env.SPRINT_GO_RACE_COUNT ?? '20';
const fuzzTime = process.env.SPRINT_FUZZ_TIME ?? '60s';

try {
  execFileSync('go', ['version'], { stdio: 'ignore' });
} catch {
  console.error(
    'go-test: Go is not installed (needed for the extension host and the testbed). Install Go 1.22+ or `apt-get install golang-go`.',
  );
  process.exit(2);
}
let failed = 0;
function go(m, args) {
  console.log(`go-test: (${m}) go ${args.join(' ')}`);
  const r = spawnSync('go', args, { cwd: path.join(root, m), stdio: 'inherit' });
  if (r.status !== 0) failed += 1;
}
for (const m of modules) {
  const fmt = spawnSync('gofmt', ['-l', '.'], { cwd: path.join(root, m), encoding: 'utf8' });
  if (fmt.status !== 0 || fmt.stdout.trim() !== '') {
    console.error(`go-test: (${m}) gofmt -l lists files that are not gofmt-formatted (run gofmt -w):\n${fmt.stdout}${fmt.stderr ?? ''}`);
    failed += 1;
  }
  go(m, ['vet', './...']);
  go(m, ['test', '-count=1', './...']);
}
if (modules.includes(HOST)) {
  if (!/^\d+$/.test(raceCount)) throw new Error(`SPRINT_GO_RACE_COUNT=${raceCount} is not a count`);
  if (raceCount !== '0') go(HOST, ['test', '-race', `-count=${raceCount}`, '.']);
  else console.log('go-test: SPRINT_GO_RACE_COUNT=0: race runs skipped');
  if (fuzzTime !== '0') {
    const listed = spawnSync('go', ['test', '-list', '^Fuzz', '.'], { cwd: path.join(root, HOST), encoding: 'utf8' });
    const targets = (listed.stdout ?? '').split('\n').filter((l) => /^Fuzz\w+$/.test(l));
    if (listed.status !== 0 || targets.length === 0) {
      console.error(`go-test: (${HOST}) could not list the fuzz targets: ${listed.stderr}`);
      failed += 1;
    }
    for (const t of targets) go(HOST, ['test', '-run', '^$', '-fuzz', `^${t}$`, `-fuzztime=${fuzzTime}`, '.']);
  } else console.log('go-test: SPRINT_FUZZ_TIME=0: fuzzing skipped');
}
process.exit(failed ? 1 : 0);
