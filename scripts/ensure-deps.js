#!/usr/bin/env node
// Quick-start guard: installs the npm dependencies as locked when
// they are missing, and checks the system programs a command needs, saying
// how to install any that are missing. Usage: ensure-deps.js [ffmpeg] [chromium] [go]
const { spawnSync } = require('child_process');
const { existsSync } = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const [major] = process.versions.node.split('.').map(Number);
if (major < 20) {
  console.error(`Sprint needs Node.js 20 or newer (this is ${process.version}).`);
  process.exit(2);
}

if (!existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  // `npm install` rather than `npm ci`: see .ci/run (npm 11 lockfile gap for unrs-resolver's optional packages).
  console.error('ensure-deps: installing npm dependencies (npm install, versions from package-lock.json)...');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const programs = {
  ffmpeg: { check: ['ffmpeg', ['-version']], hint: "apt-get install -y ffmpeg (or your platform's ffmpeg package)" },
  chromium: {
    check: [process.env.CHROMIUM_PATH || '/usr/bin/chromium', ['--version']],
    hint: 'apt-get install -y chromium (tests drive /usr/bin/chromium; set CHROMIUM_PATH for another binary)',
  },
  go: { check: ['go', ['version']], hint: 'install Go 1.22+ (https://go.dev/dl) or apt-get install -y golang-go' },
};
let missing = 0;
for (const name of process.argv.slice(2)) {
  const p = programs[name];
  if (!p) {
    console.error(`ensure-deps: unknown program ${name}`);
    process.exit(2);
  }
  const r = spawnSync(p.check[0], p.check[1], { stdio: 'ignore' });
  if (r.error || r.status !== 0) {
    console.error(`ensure-deps: ${name} is missing: ${p.hint}`);
    missing += 1;
  }
}
process.exit(missing ? 2 : 0);
