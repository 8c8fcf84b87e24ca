#!/usr/bin/env node
// The comment audit run by `npm run lint`: product code (src/, player/,
// extension/, tests and generated files aside) keeps files under 600 lines
// unless a `// size: <reason>` line near the top says why, comment blocks
// within 15 lines and file headers within 30, and no comment cites a README
// section or carries a line count. Long write-ups belong in docs/design/.
// `node scripts/comment-audit.js [FILE...]` checks the given files (default:
// the whole product tree) and exits 1 on a finding.
'use strict';

const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const DIRS = ['src', 'player', 'extension'];
const CODE = /\.(ts|tsx|js|mjs|cjs|go)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'testdata', 'test', '__tests__']);
const TEST_FILE = /(\.test\.[cm]?[jt]sx?|_test\.go)$/;
const MAX_FILE_LINES = 600;
const MAX_BLOCK_LINES = 15;
const MAX_HEADER_LINES = 30;
const SIZE_MARKER = /^\s*(\/\/|\/?\*+)\s*size:\s*\S/i;
const GENERATED = /(@generated|Code generated .* DO NOT EDIT)/;
const README_CITE = /(?<![\w/.-])README(\.md)?(#|'s\b|,|:|\s*\(|\s+["“])/;
const LINE_COUNT = /\(\s*(about\s+|~)?\d[\d,]*\s+lines?\s*\)/i;

/** Files whose findings are counted but not failed, as [path, reason] (a folder ends with /). None now. */
const ALLOW = [];

function allowed(rel) {
  return ALLOW.some(([p]) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));
}

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) walk(path.join(dir, e.name), out);
    } else if (CODE.test(e.name) && !TEST_FILE.test(e.name) && !e.name.endsWith('.d.ts')) {
      out.push(path.join(dir, e.name));
    }
  }
  return out;
}

/**
 * Comment blocks of a C-like source: runs of whole-line `//` comments and `/* … *\/` comments,
 * each as { start, end, text } with 1-based lines; `header` is true for a block before any code.
 */
function commentBlocks(lines) {
  const blocks = [];
  let seenCode = false;
  let i = 0;
  while (i < lines.length) {
    const t = lines[i].trim();
    if (t === '' || (i === 0 && t.startsWith('#!')) || t === "'use strict';") {
      i++;
      continue;
    }
    let start = i;
    if (t.startsWith('//')) {
      while (i < lines.length && lines[i].trim().startsWith('//')) i++;
    } else if (t.startsWith('/*')) {
      while (i < lines.length && !lines[i].includes('*/')) i++;
      i++;
    } else {
      seenCode = true;
      // A comment after code on the same line is not a block, but it is still read for citations.
      const at = lines[i].indexOf('//');
      if (at >= 0) blocks.push({ start: i + 1, end: i + 1, text: lines[i].slice(at), header: false, trailing: true });
      i++;
      continue;
    }
    blocks.push({ start: start + 1, end: i, text: lines.slice(start, i).join('\n'), header: !seenCode, trailing: false });
  }
  return blocks;
}

function audit(file) {
  const rel = path.relative(ROOT, file).split(path.sep).join('/');
  const source = fs.readFileSync(file, 'utf8');
  const lines = source.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.slice(0, 5).some((l) => GENERATED.test(l))) return [];
  const found = [];
  const blocks = commentBlocks(lines);
  if (lines.length > MAX_FILE_LINES && !lines.slice(0, 40).some((l) => SIZE_MARKER.test(l)))
    found.push(`${rel}: ${lines.length} lines, over ${MAX_FILE_LINES}, and no "// size: <reason>" comment at its top`);
  for (const b of blocks) {
    const n = b.end - b.start + 1;
    const limit = b.header ? MAX_HEADER_LINES : MAX_BLOCK_LINES;
    if (!b.trailing && n > limit)
      found.push(`${rel}:${b.start}: ${b.header ? 'file header' : 'comment block'} of ${n} lines, over ${limit}`);
    if (README_CITE.test(b.text)) found.push(`${rel}:${b.start}: a comment cites the README (link docs/ instead)`);
    if (LINE_COUNT.test(b.text)) found.push(`${rel}:${b.start}: a comment carries a line count`);
  }
  return found;
}

function main(argv) {
  const files = argv.length > 0 ? argv.map((f) => path.resolve(f)) : DIRS.flatMap((d) => walk(path.join(ROOT, d), []));
  let failed = 0;
  let waived = 0;
  for (const file of files) {
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    const found = audit(file);
    if (found.length === 0) continue;
    if (allowed(rel)) {
      waived += found.length;
      continue;
    }
    failed += found.length;
    for (const f of found) process.stderr.write(`comment-audit: ${f}\n`);
  }
  const note = waived > 0 ? `; ${waived} finding(s) in allow-listed files (see ALLOW in scripts/comment-audit.js)` : '';
  process.stdout.write(`comment-audit: ${files.length} file(s), ${failed} finding(s)${note}\n`);
  return failed > 0 ? 1 : 0;
}

module.exports = { audit, commentBlocks, ALLOW };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
