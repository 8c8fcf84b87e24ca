// The native messaging host manifest of the Sprint socket host and where
// Chromium-based browsers look for it (facts measured in
// docs/browser-facts.md "Native messaging"):
//   Google Chrome  ~/.config/google-chrome/NativeMessagingHosts/   (macOS: ~/Library/Application Support/Google/Chrome/NativeMessagingHosts/)
//   Chromium       ~/.config/chromium/NativeMessagingHosts/        (macOS: ~/Library/Application Support/Chromium/NativeMessagingHosts/)
//   a profile started with --user-data-dir=DIR: DIR/NativeMessagingHosts/ (the per-user one is then NOT searched)
// The file is <name>.json; `allowed_origins` names only the Sprint extension.
import * as path from 'path';
import { HOST_NAME } from '../src/constants';
import { extensionOrigin } from './extension-id';

export { HOST_NAME };

export interface HostManifest {
  name: string;
  description: string;
  path: string;
  type: 'stdio';
  allowed_origins: string[];
}

export type BrowserId = 'chrome' | 'chromium';

export function hostManifest(binaryPath: string, extensionId: string): HostManifest {
  if (!path.isAbsolute(binaryPath)) throw new Error(`the host path must be absolute (browsers require it), got ${binaryPath}`);
  return {
    name: HOST_NAME,
    description: 'Sprint socket host: TCP/TLS connections for the Sprint extension (HTTP/1.1 pipelined segment trains)',
    path: binaryPath,
    type: 'stdio',
    allowed_origins: [extensionOrigin(extensionId)],
  };
}

/** The per-user NativeMessagingHosts directory of `browser` for this OS; null where unsupported (Windows uses the registry). */
export function userHostDir(browser: BrowserId, home: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    return path.join(home, '.config', browser === 'chrome' ? 'google-chrome' : 'chromium', 'NativeMessagingHosts');
  }
  if (platform === 'darwin') {
    return path.join(
      home,
      'Library',
      'Application Support',
      ...(browser === 'chrome' ? ['Google', 'Chrome'] : ['Chromium']),
      'NativeMessagingHosts',
    );
  }
  return null;
}

/** The NativeMessagingHosts directory of a custom profile (`--user-data-dir`). */
export function profileHostDir(userDataDir: string): string {
  return path.join(path.resolve(userDataDir), 'NativeMessagingHosts');
}

/** File name of the manifest inside a NativeMessagingHosts directory. */
export function manifestFileName(): string {
  return `${HOST_NAME}.json`;
}

/** Whether parsed JSON is a manifest this installer wrote (our name). */
export function isOurManifest(x: unknown): x is HostManifest {
  return typeof x === 'object' && x !== null && (x as { name?: unknown }).name === HOST_NAME;
}
