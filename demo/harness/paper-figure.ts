// docs/fig6.svg: paper Fig. 6 as two heat maps side by side, stock dash.js
// and Sprint with the extension, each cell the median % of fair share over
// the committed runs (the same pool as docs/results.md's Fig. 6 table).
// Pure: folders in, SVG text out.

import { cellOf } from './aggregate';
import { bytesLabel, escapeHtml, rateLabel } from './format';
import { FIG6_QUEUES, FIG6_RATES, FolderData, PaperIndex, pool, resolveFolders } from './paper-tables';
import { heatMap } from './svg';

/** The two columns drawn, by player label. */
const COLUMNS: ReadonlyArray<{ readonly label: string; readonly title: string }> = [
  { label: 'stock', title: 'stock dash.js' },
  { label: 'sprint', title: 'Sprint (extension)' },
];

/** The figure as one SVG document, or null when the index feeds Fig. 6 no folder. */
export function fig6Svg(index: PaperIndex, load: (name: string) => FolderData): string | null {
  const refs = index.figures.fig6;
  if (!refs || refs.length === 0) return null;
  const agg = pool('fig6', resolveFolders(refs, load), { cellsMayDiffer: true });
  const maps = COLUMNS.map((col) => {
    const values = FIG6_QUEUES.map((q) =>
      FIG6_RATES.map((r) => {
        const cond = agg.conditions.find((c) => c.rateBitsPerSec === r && c.queueBytes === q);
        return cond ? (cellOf(agg, cond.key, col.label)?.metrics.percentOfFairShare?.median ?? null) : null;
      }),
    );
    return heatMap({
      title: `${col.title}: % of fair share`,
      rowLabels: FIG6_QUEUES.map(bytesLabel),
      colLabels: FIG6_RATES.map(rateLabel),
      values,
      rowTitle: 'queue',
      colTitle: 'bottleneck rate',
    });
  });
  const size = (svg: string): [number, number] => {
    const m = /width="(\d+)" height="(\d+)"/.exec(svg);
    return [Number(m?.[1] ?? 0), Number(m?.[2] ?? 0)];
  };
  const gap = 16;
  const top = 28;
  let x = 0;
  const placed = maps.map((svg) => {
    const [w] = size(svg);
    const out = svg.replace('<svg ', `<svg x="${x}" y="${top}" `);
    x += w + gap;
    return out;
  });
  const width = x - gap;
  const height = top + Math.max(...maps.map((m) => size(m)[1]));
  const title = 'Paper Fig. 6 on our testbed: median % of fair share against one bulk flow (red below, blue above)';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}" font-family="system-ui, sans-serif">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="18" font-size="13" fill="#222">${escapeHtml(title)}</text>`,
    ...placed,
    '</svg>',
    '',
  ].join('\n');
}
