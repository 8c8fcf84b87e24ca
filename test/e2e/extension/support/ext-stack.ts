/**
 * End-to-end fixture for the Sprint extension: builds, into one temp
 * directory, the unpacked extension (extension/webpack.config.js), the socket
 * host (CGO_ENABLED=0 go build of extension/host) and a test page bundle
 * (page/test-page.ts); launches headless Chromium with the extension loaded
 * and, unless told otherwise, the host manifest in the fresh profile's
 * NativeMessagingHosts/ (browser-facts.md: a custom --user-data-dir is the
 * only place searched then). Everything is removed by the close functions;
 * browsers are killed by PID if they do not exit.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { hostManifest, manifestFileName } from '../../../../extension/install/host-manifest';
import { extensionIdFromManifest } from '../../../../extension/install/extension-id';
import { launchBrowser, type TestBrowser } from '../../support/browser';

export const ROOT = resolve(__dirname, '../../../..');

export interface Artifacts {
  dir: string;
  unpacked: string;
  hostBinary: string;
  pageDir: string;
  mediaDir: string;
  extensionId: string;
  close(): void;
}

interface WebpackStats {
  hasErrors(): boolean;
  toString(o: string): string;
}
interface WebpackCompiler {
  run(cb: (err: Error | null, stats?: WebpackStats) => void): void;
  close(cb: (err?: Error | null) => void): void;
}

/** Runs one webpack build and closes the compiler (so no cache work keeps Jest alive). */
export function runWebpack(config: unknown): Promise<void> {
  // webpack is loaded only when a test builds (its import costs seconds)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const webpack = require('webpack') as (c: unknown) => WebpackCompiler;
  const compiler = webpack(config);
  return new Promise((res, rej) => {
    compiler.run((err, stats) => {
      compiler.close(() => {
        if (err) rej(err);
        else if (!stats || stats.hasErrors()) rej(new Error(`webpack failed:\n${stats?.toString('errors-warnings') ?? ''}`));
        else res();
      });
    });
  });
}

/** Builds extension, host and test page into a new temp directory. */
export async function buildArtifacts(): Promise<Artifacts> {
  const dir = mkdtempSync(join(tmpdir(), 'sprint-ext-e2e-'));
  const close = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const unpacked = join(dir, 'unpacked');
    const hostBinary = join(dir, 'host', 'sprint-host');
    const pageDir = join(dir, 'page');
    const mediaDir = join(dir, 'media');
    mkdirSync(pageDir);
    mkdirSync(mediaDir);
    const go = spawnSync('go', ['build', '-trimpath', '-o', hostBinary, '.'], {
      cwd: join(ROOT, 'extension', 'host'),
      env: { ...process.env, CGO_ENABLED: '0' },
      encoding: 'utf8',
    });
    if (go.error || go.status !== 0) throw new Error(`go build of the socket host failed: ${go.error?.message ?? ''}${go.stderr}`);
    // the extension's own build configuration, plain CommonJS
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const extensionConfig = require(join(ROOT, 'extension', 'webpack.config.js')) as (env: { outDir: string; mode: string }) => unknown;
    await runWebpack(extensionConfig({ outDir: unpacked, mode: 'development' }));
    await runWebpack({
      mode: 'development',
      devtool: false,
      context: ROOT,
      target: 'web',
      entry: { 'ext-test': './test/e2e/extension/page/test-page.ts' },
      output: { path: pageDir, filename: '[name].js' },
      resolve: { extensions: ['.ts', '.js'] },
      module: {
        rules: [
          {
            test: /\.ts$/,
            loader: 'ts-loader',
            options: { configFile: join(ROOT, 'player', 'tsconfig.json'), onlyCompileBundledFiles: true },
            exclude: /node_modules/,
          },
        ],
      },
      stats: 'errors-warnings',
    });
    writeFileSync(
      join(pageDir, 'index.html'),
      '<!doctype html><html><head><meta charset="utf-8"><title>sprint-ext-test</title></head><body><script src="/ext-test.js"></script></body></html>\n',
    );
    return {
      dir,
      unpacked,
      hostBinary,
      pageDir,
      mediaDir,
      extensionId: extensionIdFromManifest(join(ROOT, 'extension', 'manifest.json')),
      close,
    };
  } catch (e) {
    close();
    throw e;
  }
}

export type ExtBrowser = TestBrowser;

export interface LaunchOptions {
  /** Load the unpacked extension (default true). */
  extension?: boolean;
  /** Register the socket host in the profile (default true). */
  hostManifest?: boolean;
  /** Extra environment for the browser (and so for the host it starts). */
  env?: Record<string, string>;
}

/** Launches headless Chromium with a fresh profile, the extension and the host manifest as the options say. */
export function launchExtBrowser(a: Artifacts, o: LaunchOptions = {}): Promise<ExtBrowser> {
  return launchBrowser([], {
    extensions: o.extension === false ? undefined : [a.unpacked],
    env: o.env,
    prepareProfile: (profileDir) => {
      if (o.hostManifest === false) return;
      const nmh = join(profileDir, 'NativeMessagingHosts');
      mkdirSync(nmh);
      writeFileSync(join(nmh, manifestFileName()), JSON.stringify(hostManifest(a.hostBinary, a.extensionId), null, 2));
    },
  });
}
