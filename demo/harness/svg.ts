// Small inline-SVG charts for the HTML report, with no external assets: a
// line chart (several series, optional step lines, horizontal reference
// lines such as the fair share, shaded time bands such as the warm-up) and a
// heat map (paper Fig. 6 sweeps: rows = queue size, columns = rate, colour =
// % of fair share). Pure: options in, SVG text out.

import { escapeHtml } from './format';

export interface LineSeries {
  readonly name: string;
  readonly color: string;
  /** [x, y] points; y null breaks the line. */
  readonly points: ReadonlyArray<readonly [number, number | null]>;
  readonly dash?: string;
  readonly width?: number;
  /** Hold each value until the next point (bitrate levels). */
  readonly step?: boolean;
}

export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  readonly width?: number;
  readonly height?: number;
  readonly xMin?: number;
  readonly xMax?: number;
  readonly yMin?: number;
  readonly yMax?: number;
  readonly hLines?: ReadonlyArray<{
    readonly y: number;
    readonly label: string;
    readonly color: string;
    readonly dash?: string;
    readonly fromX?: number;
    readonly toX?: number;
  }>;
  readonly bands?: ReadonlyArray<{ readonly from: number; readonly to: number; readonly color: string; readonly label?: string }>;
  readonly yFormat?: (v: number) => string;
}

/** Round tick step (1, 2, 5 × 10^k) giving about `count` ticks over [min, max]. */
export function niceStep(min: number, max: number, count = 5): number {
  const span = Math.max(max - min, 1e-12);
  const raw = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const norm = raw / mag;
  const step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10;
  return step * mag;
}

export function ticks(min: number, max: number, count = 5): number[] {
  const step = niceStep(min, max, count);
  const out: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) out.push(+v.toFixed(10));
  return out;
}

const fmtDefault = (v: number): string => (Math.abs(v) >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1));

export function lineChart(o: LineChartOptions): string {
  const W = o.width ?? 760;
  const H = o.height ?? 250;
  const m = { left: 58, right: 16, top: 44, bottom: 40 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const xs = o.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = o.series.flatMap((s) => s.points.map((p) => p[1]).filter((v): v is number => v !== null));
  const xMin = o.xMin ?? (xs.length ? Math.min(...xs) : 0);
  const xMax = o.xMax ?? (xs.length ? Math.max(...xs) : 1);
  const yMin = o.yMin ?? 0;
  const hYs = (o.hLines ?? []).map((h) => h.y);
  const yTop = o.yMax ?? Math.max(yMin + 1e-9, ...ys, ...hYs) * 1.08;
  const yTicks = ticks(yMin, yTop, 4);
  const yMax = Math.max(yTop, yTicks[yTicks.length - 1] ?? yTop);
  const sx = (x: number): number => m.left + ((x - xMin) / Math.max(xMax - xMin, 1e-9)) * pw;
  const sy = (y: number): number => m.top + ph - ((Math.min(Math.max(y, yMin), yMax) - yMin) / Math.max(yMax - yMin, 1e-9)) * ph;
  const f = o.yFormat ?? fmtDefault;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(o.title)}" font-family="system-ui, sans-serif" font-size="11">`,
  );
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="${m.left}" y="16" font-size="13" font-weight="600" fill="#222">${escapeHtml(o.title)}</text>`);
  for (const b of o.bands ?? []) {
    const x0 = sx(Math.max(b.from, xMin));
    const x1 = sx(Math.min(b.to, xMax));
    if (x1 <= x0) continue;
    parts.push(`<rect x="${x0.toFixed(1)}" y="${m.top}" width="${(x1 - x0).toFixed(1)}" height="${ph}" fill="${b.color}"/>`);
    if (b.label) parts.push(`<text x="${(x0 + 4).toFixed(1)}" y="${m.top + 12}" fill="#777" font-size="10">${escapeHtml(b.label)}</text>`);
  }
  for (const t of yTicks) {
    const y = sy(t).toFixed(1);
    parts.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${y}" y2="${y}" stroke="#e6e6e6"/>`);
    parts.push(`<text x="${m.left - 6}" y="${(+y + 3.5).toFixed(1)}" text-anchor="end" fill="#555">${escapeHtml(f(t))}</text>`);
  }
  for (const t of ticks(xMin, xMax, 8)) {
    const x = sx(t).toFixed(1);
    parts.push(`<line x1="${x}" x2="${x}" y1="${m.top + ph}" y2="${m.top + ph + 4}" stroke="#999"/>`);
    parts.push(`<text x="${x}" y="${m.top + ph + 16}" text-anchor="middle" fill="#555">${escapeHtml(fmtDefault(t))}</text>`);
  }
  parts.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#bbb"/>`);
  parts.push(`<text x="${m.left + pw / 2}" y="${H - 6}" text-anchor="middle" fill="#444">${escapeHtml(o.xLabel)}</text>`);
  parts.push(
    `<text transform="translate(14 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" fill="#444">${escapeHtml(o.yLabel)}</text>`,
  );
  for (const s of o.series) {
    const segs: string[] = [];
    let cur: string[] = [];
    let prevY: number | null = null;
    for (const [x, y] of s.points) {
      if (y === null || x < xMin || x > xMax) {
        if (cur.length > 1) segs.push(cur.join(' '));
        cur = [];
        prevY = null;
        continue;
      }
      if (s.step && prevY !== null) cur.push(`${sx(x).toFixed(1)},${sy(prevY).toFixed(1)}`);
      cur.push(`${sx(x).toFixed(1)},${sy(y).toFixed(1)}`);
      prevY = y;
    }
    if (cur.length > 1) segs.push(cur.join(' '));
    for (const pts of segs) {
      parts.push(
        `<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="${s.width ?? 1.6}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} stroke-linejoin="round"/>`,
      );
    }
  }
  for (const h of o.hLines ?? []) {
    const x0 = sx(Math.max(h.fromX ?? xMin, xMin));
    const x1 = sx(Math.min(h.toX ?? xMax, xMax));
    const y = sy(h.y).toFixed(1);
    parts.push(
      `<line x1="${x0.toFixed(1)}" x2="${x1.toFixed(1)}" y1="${y}" y2="${y}" stroke="${h.color}" stroke-width="1.5" stroke-dasharray="${h.dash ?? '6 4'}"/>`,
    );
  }
  // Legend along the top, wrapping.
  const legend = [
    ...o.series.map((s) => ({ name: s.name, color: s.color, dash: s.dash })),
    ...(o.hLines ?? []).map((h) => ({ name: h.label, color: h.color, dash: h.dash ?? '6 4' })),
  ];
  let lx = m.left;
  let ly = 32;
  for (const item of legend) {
    const w = 26 + item.name.length * 6.2 + 14;
    if (lx + w > W - m.right) {
      lx = m.left;
      ly += 13;
    }
    parts.push(
      `<line x1="${lx}" x2="${lx + 20}" y1="${ly - 3.5}" y2="${ly - 3.5}" stroke="${item.color}" stroke-width="2.2"${item.dash ? ` stroke-dasharray="${item.dash}"` : ''}/>`,
    );
    parts.push(`<text x="${lx + 25}" y="${ly}" fill="#333">${escapeHtml(item.name)}</text>`);
    lx += w;
  }
  parts.push('</svg>');
  return parts.join('');
}

export interface HeatMapOptions {
  readonly title: string;
  readonly rowLabels: readonly string[];
  readonly colLabels: readonly string[];
  /** values[row][col]; null = no data. */
  readonly values: ReadonlyArray<ReadonlyArray<number | null>>;
  /** Small text under each value (e.g. the min–max). */
  readonly notes?: ReadonlyArray<ReadonlyArray<string | null>>;
  readonly rowTitle: string;
  readonly colTitle: string;
  readonly format?: (v: number) => string;
  readonly color?: (v: number) => string;
}

function mix(a: [number, number, number], b: [number, number, number], t: number): string {
  const c = Math.max(0, Math.min(1, t));
  const v = a.map((x, i) => Math.round(x + ((b[i] as number) - x) * c));
  return `rgb(${v[0]},${v[1]},${v[2]})`;
}

/** % of fair share → colour: red far below 100, white near 100, blue above (taking from the others). */
export function fairShareColor(percent: number): string {
  if (percent < 100) return mix([214, 69, 65], [247, 247, 247], (percent - 50) / 50);
  return mix([247, 247, 247], [66, 133, 214], (percent - 100) / 40);
}

export function heatMap(o: HeatMapOptions): string {
  const cw = 100;
  const ch = 40;
  const left = 96;
  const top = 52;
  const W = left + cw * o.colLabels.length + 16;
  const H = top + ch * o.rowLabels.length + 16;
  const f = o.format ?? ((v: number) => v.toFixed(1));
  const color = o.color ?? fairShareColor;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(o.title)}" font-family="system-ui, sans-serif" font-size="11">`,
  );
  parts.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>`);
  parts.push(`<text x="8" y="16" font-size="13" font-weight="600" fill="#222">${escapeHtml(o.title)}</text>`);
  parts.push(`<text x="${left + (cw * o.colLabels.length) / 2}" y="32" text-anchor="middle" fill="#444">${escapeHtml(o.colTitle)}</text>`);
  parts.push(`<text x="8" y="${top - 6}" fill="#444">${escapeHtml(o.rowTitle)}</text>`);
  o.colLabels.forEach((c, j) =>
    parts.push(
      `<text x="${left + j * cw + cw / 2}" y="${top - 6}" text-anchor="middle" fill="#333" font-weight="600">${escapeHtml(c)}</text>`,
    ),
  );
  o.rowLabels.forEach((r, i) => {
    parts.push(
      `<text x="${left - 8}" y="${top + i * ch + ch / 2 + 4}" text-anchor="end" fill="#333" font-weight="600">${escapeHtml(r)}</text>`,
    );
    o.colLabels.forEach((_, j) => {
      const v = o.values[i]?.[j] ?? null;
      const x = left + j * cw;
      const y = top + i * ch;
      parts.push(
        `<rect x="${x + 1}" y="${y + 1}" width="${cw - 2}" height="${ch - 2}" fill="${v === null ? '#eee' : color(v)}" stroke="#fff"/>`,
      );
      const note = o.notes?.[i]?.[j] ?? null;
      parts.push(
        `<text x="${x + cw / 2}" y="${y + (note ? 17 : 24)}" text-anchor="middle" font-size="13" font-weight="600" fill="#111">${v === null ? '–' : escapeHtml(f(v))}</text>`,
      );
      if (note)
        parts.push(`<text x="${x + cw / 2}" y="${y + 31}" text-anchor="middle" font-size="10" fill="#333">${escapeHtml(note)}</text>`);
    });
  });
  parts.push('</svg>');
  return parts.join('');
}
