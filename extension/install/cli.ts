// Command line of the Sprint extension installer:
//   node dist/extension/install/cli.js install [--profile DIR]... [--browser chrome|chromium]... [--no-build]
//   node dist/extension/install/cli.js uninstall [--profile DIR]...
// (npm run extension:install / extension:uninstall). Exit 0 on success, 1 on
// failure (the message says what is missing and how to fix it), 2 on bad usage.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { BrowserId } from './host-manifest';
import { InstallError, install, uninstall, type InstallEnv } from './install';
import { runMain } from '../../src/cli/run-main';

const USAGE = `usage: extension-install <install|uninstall> [options]
  install    build the Sprint extension and its socket host, register the host
             for Google Chrome and Chromium (those found for this user)
  uninstall  remove what install wrote
options:
  --profile DIR      also register in DIR/NativeMessagingHosts (a browser started with --user-data-dir=DIR); repeatable
  --browser NAME     register for this browser only: chrome or chromium; repeatable (default: those found)
  --no-build         use the extension and host already built in dist/extension
  --help`;

/** The repository root: the nearest ancestor of this file holding package.json and extension/manifest.json. */
export function repoRoot(from: string = __dirname): string {
  for (let d = from, i = 0; i < 10; i += 1, d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) && fs.existsSync(path.join(d, 'extension', 'manifest.json'))) return d;
    if (path.dirname(d) === d) break;
  }
  throw new Error(`cannot find the repository root (package.json and extension/manifest.json) above ${from}`);
}

/** Finds `name` on PATH (executable files only). */
export function which(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const f = path.join(dir, name);
    try {
      fs.accessSync(f, fs.constants.X_OK);
      if (fs.statSync(f).isFile()) return f;
    } catch {
      // not here
    }
  }
  return null;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  const profiles: string[] = [];
  const browsers: BrowserId[] = [];
  let build = true;
  for (let i = 0; i < rest.length; i += 1) {
    const a = rest[i] as string;
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      return 0;
    } else if (a === '--profile' || a === '--browser') {
      const v = rest[i + 1];
      if (v === undefined || v.startsWith('--')) {
        console.error(`${a} needs a value\n${USAGE}`);
        return 2;
      }
      i += 1;
      if (a === '--profile') profiles.push(v);
      else if (v === 'chrome' || v === 'chromium') browsers.push(v);
      else {
        console.error(`--browser must be chrome or chromium, got ${JSON.stringify(v)}`);
        return 2;
      }
    } else if (a === '--no-build') {
      build = false;
    } else {
      console.error(`unknown argument ${JSON.stringify(a)}\n${USAGE}`);
      return 2;
    }
  }
  const env: InstallEnv = { root: repoRoot(), home: os.homedir(), platform: process.platform, which, log: (l) => console.log(l) };
  try {
    if (command === 'install') {
      install(env, { profiles, build, ...(browsers.length ? { browsers } : {}) });
      return 0;
    }
    if (command === 'uninstall') {
      uninstall(env, { profiles });
      return 0;
    }
    console.error(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    return 2;
  } catch (err) {
    console.error(err instanceof InstallError ? `extension ${command}: ${err.message}` : ((err as Error).stack ?? String(err)));
    return 1;
  }
}

runMain(module, 'sprint-extension-install', main, { exit: 'now' });
