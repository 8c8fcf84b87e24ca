// Packs the built extension (dist/extension/unpacked) into
// dist/extension/sprint-extension.zip (its manifest carries the version): the archive to upload to the
// Chrome Web Store, or to unpack and load with "Load unpacked". Run by
// `npm run build:extension` after webpack. Source maps stay out.
//   node dist/extension/install/pack-cli.js [--from DIR] [--out FILE]
import * as fs from 'fs';
import * as path from 'path';
import { zip, type ZipEntry } from './zip';
import { repoRoot } from './cli';
import { runMain } from '../../src/cli/run-main';

/** Every file below `dir` (relative names with forward slashes), source maps left out. */
export function collect(dir: string, prefix = ''): ZipEntry[] {
  const out: ZipEntry[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    const st = fs.statSync(full);
    if (st.isDirectory()) out.push(...collect(full, rel));
    else if (st.isFile() && !name.endsWith('.map')) out.push({ name: rel, data: fs.readFileSync(full) });
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const root = repoRoot();
  let from = path.join(root, 'dist', 'extension', 'unpacked');
  let out: string | null = null;
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--from' && argv[i + 1]) from = path.resolve(argv[++i] as string);
    else if (a === '--out' && argv[i + 1]) out = path.resolve(argv[++i] as string);
    else {
      process.stderr.write(`extension-pack: unknown argument ${JSON.stringify(a)}\nusage: extension-pack [--from DIR] [--out FILE]\n`);
      return 2;
    }
  }
  const manifestFile = path.join(from, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    process.stderr.write(`extension-pack: ${manifestFile} not found: build the extension first (npm run build:extension)\n`);
    return 1;
  }
  const target = out ?? path.join(root, 'dist', 'extension', 'sprint-extension.zip');
  const entries = collect(from);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, zip(entries));
  process.stdout.write(`${target} (${entries.length} files)\n`);
  return 0;
}

runMain(module, 'extension-pack', main);
