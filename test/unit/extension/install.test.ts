// The Sprint extension installer (extension/install/): the
// host manifest it writes (name, absolute path, stdio, only our extension's
// origin), where (per-user Chrome/Chromium directories of the browsers found,
// and --profile user-data-dirs), the clear errors when Go or every browser is
// missing, and that uninstall leaves the file tree exactly as it was.

import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { join, relative } from 'path';
import { extensionIdFromKey, extensionIdFromManifest } from '../../../extension/install/extension-id';
import { InstallError, install, uninstall, type InstallEnv } from '../../../extension/install/install';
import { main } from '../../../extension/install/cli';

const REPO = join(__dirname, '..', '..', '..');
const SPRINT_ID = 'aieflfmlkjpkgldfefpdcbfiogenabna';

function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      out.push(`${relative(dir, p)}${st.isDirectory() ? '/' : ` ${st.size}`}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

describe('extension ID', () => {
  test('the manifest key gives the documented, stable ID', () => {
    expect(extensionIdFromManifest(join(REPO, 'extension', 'manifest.json'))).toBe(SPRINT_ID);
  });
  test('a key that is not base64 DER is refused', () => {
    expect(() => extensionIdFromKey('not a key!')).toThrow(/not base64 of a DER public key/);
  });
  test('the host allowlist names the same ID', () => {
    expect(readFileSync(join(REPO, 'extension', 'host', 'allowlist.go'), 'utf8')).toContain(
      `const AllowedExtensionOrigins = "chrome-extension://${SPRINT_ID}/"`,
    );
  });
});

describe('install / uninstall', () => {
  let base: string;
  let root: string;
  let home: string;
  let logs: string[];
  const env = (which: (n: string) => string | null): InstallEnv => ({ root, home, platform: 'linux', which, log: (l) => logs.push(l) });

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'sprint-install-test-'));
    root = join(base, 'repo');
    home = join(base, 'home');
    logs = [];
    mkdirSync(join(root, 'extension'), { recursive: true });
    cpSync(join(REPO, 'extension', 'manifest.json'), join(root, 'extension', 'manifest.json'));
    mkdirSync(join(root, 'dist', 'extension', 'unpacked'), { recursive: true });
    mkdirSync(join(root, 'dist', 'extension', 'host'), { recursive: true });
    writeFileSync(join(root, 'dist', 'extension', 'unpacked', 'manifest.json'), '{}');
    writeFileSync(join(root, 'dist', 'extension', 'host', 'sprint-host'), 'binary');
    // The user already has Chromium with another native host registered.
    mkdirSync(join(home, '.config', 'chromium', 'NativeMessagingHosts'), { recursive: true });
    writeFileSync(join(home, '.config', 'chromium', 'NativeMessagingHosts', 'other.host.json'), '{"name":"other.host"}');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  test('writes the host manifest for the browsers found and each profile; uninstall restores the tree exactly', () => {
    const profile = join(base, 'profile');
    const before = { home: tree(home), base: tree(base) };
    install(
      env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null)),
      { build: false, profiles: [profile] },
    );
    const written = [
      join(home, '.config', 'chromium', 'NativeMessagingHosts', 'org.sprint.socket_host.json'),
      join(profile, 'NativeMessagingHosts', 'org.sprint.socket_host.json'),
    ];
    for (const f of written) {
      expect(JSON.parse(readFileSync(f, 'utf8'))).toEqual({
        name: 'org.sprint.socket_host',
        description: expect.stringMatching(/Sprint socket host/),
        path: join(root, 'dist', 'extension', 'host', 'sprint-host'),
        type: 'stdio',
        allowed_origins: [`chrome-extension://${SPRINT_ID}/`],
      });
    }
    // Google Chrome was not found: nothing written for it.
    expect(tree(home).some((l) => l.startsWith('.config/google-chrome'))).toBe(false);
    expect(logs.join('\n')).toMatch(/Load unpacked" and choose .*dist\/extension\/unpacked/);
    expect(logs.join('\n')).toContain(`Sprint extension ID: ${SPRINT_ID}`);

    const removed = uninstall(env(() => null));
    expect(removed).toEqual(expect.arrayContaining([...written, profile, join(profile, 'NativeMessagingHosts')]));
    expect({ home: tree(home), base: tree(base) }).toEqual(before);
  });

  test('explicit --browser chrome creates its directory, and uninstall removes the directories it created', () => {
    const before = tree(home);
    install(
      env(() => null),
      { build: false, browsers: ['chrome'] },
    );
    expect(tree(home)).toContain('.config/google-chrome/NativeMessagingHosts/');
    uninstall(env(() => null));
    expect(tree(home)).toEqual(before);
  });

  test('uninstall never removes a manifest that is not ours, nor one pointing to another checkout', () => {
    const dir = join(home, '.config', 'chromium', 'NativeMessagingHosts');
    writeFileSync(
      join(dir, 'org.sprint.socket_host.json'),
      JSON.stringify({ name: 'org.sprint.socket_host', path: '/elsewhere/sprint-host' }),
    );
    const before = tree(home);
    expect(uninstall(env(() => null))).toEqual([]);
    expect(tree(home)).toEqual(before);
    expect(logs.join('\n')).toMatch(/points to another Sprint host/);
  });

  test("install refuses to overwrite a host manifest it did not write (not ours, or another checkout's), writing nothing", () => {
    const dir = join(home, '.config', 'chromium', 'NativeMessagingHosts');
    const file = join(dir, 'org.sprint.socket_host.json');
    for (const content of [
      '{"name":"org.sprint.socket_host","path":"/opt/someone-else/host"}',
      JSON.stringify({
        name: 'org.sprint.socket_host',
        description: 'Sprint socket host',
        path: '/elsewhere/sprint-host',
        type: 'stdio',
        allowed_origins: [`chrome-extension://${SPRINT_ID}/`],
      }),
    ]) {
      writeFileSync(file, content);
      const before = tree(base);
      expect(() =>
        install(
          env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null)),
          { build: false },
        ),
      ).toThrow(/already exists and is not this checkout's.*left it unchanged/s);
      expect(readFileSync(file, 'utf8')).toBe(content);
      expect(tree(base)).toEqual(before);
    }
  });

  test('install never follows a symlink at the manifest path: refused, the link and its target unchanged', () => {
    const dir = join(home, '.config', 'chromium', 'NativeMessagingHosts');
    const target = join(base, 'precious.txt');
    writeFileSync(target, 'do not touch');
    symlinkSync(target, join(dir, 'org.sprint.socket_host.json'));
    expect(() =>
      install(
        env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null)),
        { build: false },
      ),
    ).toThrow(/is a symbolic link/);
    expect(readFileSync(target, 'utf8')).toBe('do not touch');
    expect(lstatSync(join(dir, 'org.sprint.socket_host.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'org.sprint.socket_host.json'))).toBe(target);
  });

  test('re-install over its own manifest is fine', () => {
    const chromium = env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null));
    install(chromium, { build: false });
    expect(() => install(chromium, { build: false })).not.toThrow();
  });

  test("uninstall leaves a manifest listed in its receipt that now points at another checkout's host, and a symlink", () => {
    install(
      env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null)),
      { build: false },
    );
    const file = join(home, '.config', 'chromium', 'NativeMessagingHosts', 'org.sprint.socket_host.json');
    const other = JSON.stringify({
      name: 'org.sprint.socket_host',
      description: 'Sprint socket host',
      path: '/other/checkout/dist/extension/host/sprint-host',
      type: 'stdio',
      allowed_origins: [`chrome-extension://${SPRINT_ID}/`],
    });
    writeFileSync(file, other);
    expect(uninstall(env(() => null))).not.toContain(file);
    expect(readFileSync(file, 'utf8')).toBe(other);
    expect(logs.join('\n')).toMatch(/points to another Sprint host/);
    // A link to a file that would pass as ours is left too (uninstall deletes only regular files).
    const ours = join(base, 'ours.json');
    writeFileSync(
      ours,
      JSON.stringify({
        name: 'org.sprint.socket_host',
        description: 'Sprint socket host',
        path: join(root, 'dist', 'extension', 'host', 'sprint-host'),
        type: 'stdio',
        allowed_origins: [`chrome-extension://${SPRINT_ID}/`],
      }),
    );
    rmSync(file);
    symlinkSync(ours, file);
    expect(uninstall(env(() => null))).not.toContain(file);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  test('no browser found: a clear error, nothing written', () => {
    rmSync(join(home, '.config'), { recursive: true });
    const before = tree(home);
    expect(() =>
      install(
        env(() => null),
        { build: false },
      ),
    ).toThrow(InstallError);
    expect(() =>
      install(
        env(() => null),
        { build: false },
      ),
    ).toThrow(/No Google Chrome or Chromium was found .* --browser chrome, --browser chromium, or --profile <user-data-dir>/s);
    expect(tree(home)).toEqual(before);
  });

  test('Go missing: a clear error before anything is registered', () => {
    const before = tree(home);
    expect(() =>
      install(
        env((n) => (n === 'chromium' ? '/usr/bin/chromium' : null)),
        { build: true },
      ),
    ).toThrow(/Go is not installed.*go\.dev\/dl/s);
    expect(tree(home)).toEqual(before);
  });

  test('--no-build without a build: says what is missing', () => {
    rmSync(join(root, 'dist', 'extension', 'host', 'sprint-host'));
    expect(() =>
      install(
        env(() => '/usr/bin/chromium'),
        { build: false },
      ),
    ).toThrow(/sprint-host is missing: run the install without --no-build first/);
  });
});

describe('cli', () => {
  test('bad usage exits 2', async () => {
    const err = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await main(['install', '--browser', 'firefox'])).toBe(2);
      expect(await main(['install', '--profile'])).toBe(2);
      expect(await main(['frobnicate'])).toBe(2);
      expect(err.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(/--browser must be chrome or chromium/);
    } finally {
      err.mockRestore();
    }
  });
});
