#!/usr/bin/env node
// Runs `go vet` and `go test` in every Go module of the repository (the
// extension's socket host, the testbed's delay element). A missing Go
// toolchain is an error with instructions, never a silent skip.
const { execFileSync, spawnSync } = require('child_process');
const { existsSync } = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const modules = ['extension/host', 'demo/testbed/delay'].filter((m) => existsSync(path.join(root, m, 'go.mod')));

try {
  execFileSync('go', ['version'], { stdio: 'ignore' });
} catch {
  console.error('go-test: Go is not installed (needed for the extension host and the testbed). Install Go 1.22+ or `apt-get install golang-go`.');
  process.exit(2);
}
let failed = 0;
for (const m of modules) {
  for (const args of [['vet', './...'], ['test', '-count=1', './...']]) {
    console.log(`go-test: (${m}) go ${args.join(' ')}`);
    const r = spawnSync('go', args, { cwd: path.join(root, m), stdio: 'inherit' });
    if (r.status !== 0) failed += 1;
  }
}
process.exit(failed ? 1 : 0);
