// Number formatting shared by the Markdown and HTML reports: rates in Mbit/s,
// sizes in KB/MB (binary, like tc and the CLI), and "median [min–max]" cells
// for figures over repeats. Pure.

import type { Summary } from '../testbed/metrics';

export function mbit(bitsPerSec: number, digits = 2): string {
  return (bitsPerSec / 1e6).toFixed(digits);
}

/** 3000000 → "3 Mbit/s", 1500000 → "1.5 Mbit/s", 800000 → "800 kbit/s". */
export function rateLabel(bitsPerSec: number): string {
  if (bitsPerSec >= 1e6) return `${+(bitsPerSec / 1e6).toFixed(3)} Mbit/s`;
  return `${+(bitsPerSec / 1e3).toFixed(3)} kbit/s`;
}

/** 262144 → "256 KB", 1572864 → "1536 KB", 5242880 → "5 MB" (binary). */
export function bytesLabel(bytes: number): string {
  if (bytes >= 4 * 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KB`;
  return `${bytes} B`;
}

/** "87.1 [85.0–90.2]" for n > 1, "87.1" for one value, "–" for none. `scale` multiplies first. */
export function cellText(s: Summary | undefined | null, digits = 1, scale = 1): string {
  if (!s) return '–';
  const f = (v: number): string => (v * scale).toFixed(digits);
  return s.n > 1 ? `${f(s.median)} [${f(s.min)}–${f(s.max)}]` : f(s.median);
}

/** Seconds as "5m", "90s", "1h30m". */
export function durationLabel(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 120) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${rest > 0 ? `${rest}s` : ''}`;
}

/** Seconds as "mm:ss" or "h:mm:ss" for progress lines. */
export function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(sec)}` : `${two(m)}:${two(sec)}`;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A player's stalls in a window: "0 stalls", "1 stall, 299 s", "3 stalls, 12.4 s"; "– stalls" when unknown. */
export function stallLabel(count: number | null, seconds: number | null): string {
  if (count === null) return '– stalls';
  const head = `${count} stall${count === 1 ? '' : 's'}`;
  if (count === 0 && !(seconds !== null && seconds >= 0.05)) return head;
  const s = seconds ?? 0;
  return `${head}, ${s >= 10 ? s.toFixed(0) : s.toFixed(1)} s`;
}

/**
 * Rows of cells as plain-text lines, each column padded to its widest cell,
 * columns two spaces apart, each line after `indent` and without trailing
 * spaces: the CLIs' and benchmarks' tables.
 */
export function alignColumns(rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `${indent}${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd());
}
