// Installs and uninstalls the Sprint extension's pieces for the current user
// ("a command builds the extension and the host and registers
// the host manifest for Google Chrome and Chromium ..., then says how to load
// the extension; and an uninstall counterpart"):
//   1. build the unpacked extension (webpack, extension/webpack.config.js) into dist/extension/unpacked/
//   2. build the socket host (CGO_ENABLED=0 go build) into dist/extension/host/sprint-host
//   3. write the host manifest into the per-user directory of each browser found,
//      and into <DIR>/NativeMessagingHosts/ for every --profile DIR
//   4. record every file and directory it created in dist/extension/install-receipt.json
// Uninstall removes exactly what the receipt lists (manifests only if they are
// still ours; directories only if it created them and they are empty).
// Neither touches what is not ours: install refuses to replace a host manifest
// that does not point at this checkout's host binary, or a symbolic link (it
// writes a new file and renames it into place, never through a link); uninstall
// removes a manifest only if it is a regular file that still points at this
// checkout's host binary.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { extensionIdFromManifest } from './extension-id';
import { hostManifest, isOurManifest, manifestFileName, profileHostDir, userHostDir, type BrowserId } from './host-manifest';

export interface InstallEnv {
  /** Repository root (holds package.json, extension/, dist/). */
  root: string;
  home: string;
  platform: NodeJS.Platform;
  /** Finds an executable on PATH; null if absent. */
  which(name: string): string | null;
  log(line: string): void;
}

export interface InstallOptions {
  /** Browsers to register for; default: those found (binary on PATH or profile directory present). */
  browsers?: BrowserId[];
  /** Custom user-data-dirs to register in. */
  profiles?: string[];
  /** Build the extension and the host (default true); false: use what is in dist/extension. */
  build?: boolean;
}

export interface Receipt {
  version: 1;
  /** Files written (host manifests, build outputs' top directories are in `builtDirs`). */
  files: string[];
  /** Directories created by the installer (removed on uninstall if empty). */
  createdDirs: string[];
  /** Build output directories (removed whole on uninstall). */
  builtDirs: string[];
}

export class InstallError extends Error {}

export function paths(root: string): {
  dist: string;
  unpacked: string;
  hostDir: string;
  hostBinary: string;
  receipt: string;
  manifest: string;
  hostSrc: string;
} {
  const dist = path.join(root, 'dist', 'extension');
  return {
    dist,
    unpacked: path.join(dist, 'unpacked'),
    hostDir: path.join(dist, 'host'),
    hostBinary: path.join(dist, 'host', 'sprint-host'),
    receipt: path.join(dist, 'install-receipt.json'),
    manifest: path.join(root, 'extension', 'manifest.json'),
    hostSrc: path.join(root, 'extension', 'host'),
  };
}

const BROWSER_BINARIES: Record<BrowserId, string[]> = {
  chrome: ['google-chrome', 'google-chrome-stable', 'google-chrome-beta', 'google-chrome-unstable'],
  chromium: ['chromium', 'chromium-browser'],
};
const BROWSER_NAMES: Record<BrowserId, string> = { chrome: 'Google Chrome', chromium: 'Chromium' };

/** Browsers that look installed for this user. */
export function detectBrowsers(env: InstallEnv): BrowserId[] {
  return (['chrome', 'chromium'] as BrowserId[]).filter((b) => {
    if (BROWSER_BINARIES[b].some((n) => env.which(n) !== null)) return true;
    const dir = userHostDir(b, env.home, env.platform);
    return dir !== null && fs.existsSync(path.dirname(dir));
  });
}

function readReceipt(file: string): Receipt {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as Receipt;
    if (r.version === 1 && Array.isArray(r.files) && Array.isArray(r.createdDirs) && Array.isArray(r.builtDirs)) return r;
  } catch {
    // none yet
  }
  return { version: 1, files: [], createdDirs: [], builtDirs: [] };
}

/** mkdir -p that records every directory it created. */
function mkdirRecorded(dir: string, created: string[]): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) {
    fs.mkdirSync(d);
    created.push(d);
  }
}

function buildExtension(env: InstallEnv, outDir: string): void {
  env.log(`building the extension into ${outDir} (webpack)...`);
  const webpackDir = path.join(env.root, 'node_modules', 'webpack');
  if (!fs.existsSync(webpackDir)) throw new InstallError(`webpack is not installed in ${env.root}: run \`npm ci\` first`);
  const child = spawnSync(
    process.execPath,
    ['-e', buildScript(), webpackDir, path.join(env.root, 'extension', 'webpack.config.js'), outDir],
    {
      cwd: env.root,
      encoding: 'utf8',
    },
  );
  if (child.error) throw new InstallError(`building the extension failed: ${child.error.message}`);
  if (child.status !== 0) throw new InstallError(`building the extension failed:\n${`${child.stdout}${child.stderr}`.trim()}`);
}

/** A tiny Node program that runs webpack with the extension config (argv: webpack dir, config file, out dir). */
function buildScript(): string {
  return [
    'const [webpackDir, configFile, outDir] = process.argv.slice(1);',
    'const webpack = require(webpackDir);',
    'webpack(require(configFile)({ outDir }), (err, stats) => {',
    '  if (err) { console.error(err.stack || String(err)); process.exit(1); }',
    "  const text = stats.toString('errors-warnings');",
    '  if (text.trim()) console.error(text);',
    '  process.exit(stats.hasErrors() ? 1 : 0);',
    '});',
  ].join('\n');
}

function requireGo(env: InstallEnv): void {
  if (env.which('go') === null) {
    throw new InstallError(
      'Go is not installed, and the Sprint socket host is a Go program.\n' +
        '  Install Go 1.22 or newer (https://go.dev/dl, or `apt-get install golang-go`), then run this command again.',
    );
  }
}

function buildHost(env: InstallEnv, binary: string, hostSrc: string): void {
  env.log(`building the socket host into ${binary} (CGO_ENABLED=0 go build)...`);
  const r = spawnSync('go', ['build', '-trimpath', '-o', binary, '.'], {
    cwd: hostSrc,
    env: { ...process.env, CGO_ENABLED: '0' },
    encoding: 'utf8',
  });
  if (r.error) throw new InstallError(`go build could not run: ${r.error.message}`);
  if (r.status !== 0) throw new InstallError(`go build of ${hostSrc} failed:\n${`${r.stdout}${r.stderr}`.trim()}`);
}

/** Builds and registers; returns the receipt. Throws InstallError with a message for people. */
export function install(env: InstallEnv, o: InstallOptions = {}): Receipt {
  const p = paths(env.root);
  const id = extensionIdFromManifest(p.manifest);
  const receipt = readReceipt(p.receipt);
  const created: string[] = [];

  if (o.build !== false) {
    requireGo(env);
    mkdirRecorded(p.dist, created);
    buildHost(env, p.hostBinary, p.hostSrc); // first: the clearer failure (Go missing) comes before a long webpack run
    buildExtension(env, p.unpacked);
    for (const d of [p.unpacked, p.hostDir]) if (!receipt.builtDirs.includes(d)) receipt.builtDirs.push(d);
  } else {
    for (const f of [path.join(p.unpacked, 'manifest.json'), p.hostBinary]) {
      if (!fs.existsSync(f)) throw new InstallError(`${f} is missing: run the install without --no-build first`);
    }
  }

  const targets: Array<{ label: string; dir: string }> = [];
  const browsers = o.browsers ?? detectBrowsers(env);
  for (const b of browsers) {
    const dir = userHostDir(b, env.home, env.platform);
    if (dir === null)
      throw new InstallError(
        `registering a native messaging host for ${BROWSER_NAMES[b]} on ${env.platform} is not supported by this installer (Windows uses the registry)`,
      );
    targets.push({ label: BROWSER_NAMES[b], dir });
  }
  for (const prof of o.profiles ?? []) targets.push({ label: `profile ${path.resolve(prof)}`, dir: profileHostDir(prof) });
  if (targets.length === 0) {
    throw new InstallError(
      'No Google Chrome or Chromium was found for this user (looked for ' +
        [...BROWSER_BINARIES.chrome, ...BROWSER_BINARIES.chromium].join(', ') +
        ' on PATH and their profile directories).\n' +
        '  Install one of them, or say where to register: --browser chrome, --browser chromium, or --profile <user-data-dir>.',
    );
  }

  // Nothing is written unless every manifest path is free or already ours.
  for (const t of targets) {
    const problem = notOursToReplace(path.join(t.dir, manifestFileName()), p.hostBinary);
    if (problem) throw new InstallError(problem);
  }
  const manifest = `${JSON.stringify(hostManifest(p.hostBinary, id), null, 2)}\n`;
  for (const t of targets) {
    mkdirRecorded(t.dir, created);
    const file = path.join(t.dir, manifestFileName());
    writeNoFollow(file, manifest);
    if (!receipt.files.includes(file)) receipt.files.push(file);
    env.log(`registered the socket host for ${t.label}: ${file}`);
  }
  for (const d of created) if (!receipt.createdDirs.includes(d)) receipt.createdDirs.push(d);
  fs.mkdirSync(path.dirname(p.receipt), { recursive: true });
  fs.writeFileSync(p.receipt, `${JSON.stringify(receipt, null, 2)}\n`);

  env.log('');
  env.log(`Sprint extension ID: ${id}`);
  env.log('Now load the extension (once per browser profile):');
  env.log('  1. open chrome://extensions');
  env.log('  2. switch on "Developer mode" (top right)');
  env.log(`  3. click "Load unpacked" and choose ${p.unpacked}`);
  env.log('  4. reload the pages that play video with Sprint');
  return receipt;
}

/** Why `file` may not be replaced by our manifest (a link, not a file, or a manifest that is not this checkout's), else null. */
function notOursToReplace(file: string, hostBinary: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch {
    return null; // absent
  }
  if (st.isSymbolicLink()) return `${file} is a symbolic link; the installer does not write through links. Remove it and install again.`;
  if (!st.isFile()) return `${file} exists and is not a regular file; left it unchanged.`;
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // not JSON: not ours
  }
  if (isOurManifest(parsed) && parsed.path === hostBinary) return null;
  const what = isOurManifest(parsed) ? `it registers the Sprint host at ${parsed.path}` : 'it is not a Sprint host manifest';
  return `${file} already exists and is not this checkout's Sprint host manifest (${what}); left it unchanged.\n  Remove it (or run the uninstall of the checkout it points to) and install again.`;
}

/** Writes `file` as a new file renamed into place: an existing link at `file` is replaced, never followed. */
function writeNoFollow(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** Removes what install wrote (per the receipt, else our manifests in the known places). Returns the paths removed. */
export function uninstall(env: InstallEnv, o: { profiles?: string[] } = {}): string[] {
  const p = paths(env.root);
  const receipt = readReceipt(p.receipt);
  const removed: string[] = [];
  const candidates = new Set(receipt.files);
  // Without a receipt (dist/ was cleaned), look where install would have written.
  for (const b of ['chrome', 'chromium'] as BrowserId[]) {
    const dir = userHostDir(b, env.home, env.platform);
    if (dir) candidates.add(path.join(dir, manifestFileName()));
  }
  for (const prof of o.profiles ?? []) candidates.add(path.join(profileHostDir(prof), manifestFileName()));
  for (const file of candidates) {
    try {
      if (!fs.lstatSync(file).isFile()) {
        env.log(`left ${file}: it is not a regular file`);
        continue;
      }
    } catch {
      continue; // absent
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      continue; // absent or not JSON: not ours to touch
    }
    if (!isOurManifest(parsed)) {
      env.log(`left ${file}: it is not the Sprint host manifest`);
      continue;
    }
    if (parsed.path !== p.hostBinary) {
      env.log(`left ${file}: it points to another Sprint host (${parsed.path}), not this checkout's`);
      continue;
    }
    fs.rmSync(file);
    removed.push(file);
    env.log(`removed ${file}`);
  }
  for (const d of receipt.builtDirs) {
    if (fs.existsSync(d)) {
      fs.rmSync(d, { recursive: true, force: true });
      removed.push(d);
      env.log(`removed ${d}`);
    }
  }
  if (fs.existsSync(p.receipt)) {
    fs.rmSync(p.receipt);
    removed.push(p.receipt);
  }
  // Deepest first, only if empty now.
  for (const d of [...receipt.createdDirs].sort((a, b) => b.length - a.length)) {
    try {
      if (fs.readdirSync(d).length === 0) {
        fs.rmdirSync(d);
        removed.push(d);
        env.log(`removed ${d}`);
      }
    } catch {
      // gone already
    }
  }
  if (removed.length === 0) env.log('nothing to remove: the Sprint socket host is not registered here');
  else env.log('Remove the Sprint extension itself in chrome://extensions (it may now show as broken).');
  return removed;
}
