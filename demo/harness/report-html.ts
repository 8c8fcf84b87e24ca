// report.html: one self-contained page (inline CSS and SVG, no scripts, no
// external assets) with the summary tables (fair-share cells coloured), a
// heat map per column for grid sweeps (paper Fig. 6), and per run the plots
// of paper Fig. 10: throughput of every flow over time with the fair-share
// line and each player's video bitrate (the ABR's current choice, polled once
// a second), the players' buffer levels, and the
// bottleneck queue. Pure: manifest, aggregate and run summaries in, HTML out.

import type { Aggregate } from './aggregate';
import { cellOf } from './aggregate';
import { bytesLabel, cellText, escapeHtml, mbit, rateLabel, stallLabel } from './format';
import { trainLabel } from './train-figures';
import type { AbManifest } from './manifest';
import { problemLines, provenanceSentence, ReportGaps, settingsSentence } from './report-md';
import { byRate, columnTitle, summaryTables, TableModel } from './report-tables';
import type { RunSummary } from './run-summary';
import { fairShareColor, heatMap, lineChart, LineSeries } from './svg';

const PLAYER_COLORS = ['#1a1a1a', '#2a9d4b', '#8e44ad', '#b5651d'];
const BITRATE_COLORS = ['#1f6fd1', '#12a3a3', '#c2185b', '#6d4c41'];
const BULK_COLORS = ['#f28e2b', '#e15759', '#edc948', '#ff9da7', '#9c755f'];
const CONTROL_COLOR = '#4e79a7';
/** Display smoothing of the throughput plot, seconds. */
const SMOOTH_S = 10;

const CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 0; background: #f4f5f7; }
main { max-width: 1120px; margin: 0 auto; padding: 20px 28px 60px; background: #fff; }
h1 { font-size: 22px; margin: 6px 0 10px; }
h2 { font-size: 17px; margin: 30px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
code { background: #f0f0f0; padding: 1px 4px; border-radius: 3px; font-size: 12.5px; }
p.note, p.settings { color: #444; max-width: 980px; }
table { border-collapse: collapse; margin: 6px 0 14px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d5d5d5; padding: 4px 10px; text-align: right; white-space: nowrap; }
th { background: #f0f2f5; font-weight: 600; }
td:first-child, th:first-child { text-align: left; }
td.wrap { white-space: normal; text-align: left; max-width: 360px; font-size: 12.5px; }
caption { text-align: left; font-weight: 600; padding: 2px 0 4px; }
.problems li { color: #a33; }
details { border: 1px solid #e2e2e2; border-radius: 6px; margin: 8px 0; padding: 4px 10px; }
details > summary { cursor: pointer; padding: 4px 0; }
.run-head { font-variant-numeric: tabular-nums; }
.bad { color: #b00020; font-weight: 600; }
.charts svg { display: block; margin: 6px 0; max-width: 100%; height: auto; }
.heat { display: flex; flex-wrap: wrap; gap: 18px; }
.blocks { display: flex; flex-wrap: wrap; gap: 0 22px; align-items: flex-start; }
.cards { display: flex; flex-wrap: wrap; gap: 4px 34px; align-items: flex-start; }
.cards > section { flex: 0 1 auto; min-width: 320px; max-width: 100%; }
.cards h2 { font-size: 15px; margin-top: 18px; max-width: 340px; }
.cards p.note { font-size: 12.5px; margin: 2px 0 4px; max-width: 340px; }
td.text, th.text { text-align: left; }
`;

/** Columns of text (left-aligned) in the data-plane table. */
const TEXT_COLUMNS: Readonly<Record<string, readonly number[]>> = { 'data-plane': [1, 2, 3] };

function renderTableHtml(t: TableModel): string {
  const out: string[] = [`<section><h2 id="${t.id}">${escapeHtml(t.title)}</h2>`];
  if (t.note) out.push(`<p class="note">${escapeHtml(t.note)}</p>`);
  out.push('<div class="blocks">');
  for (const b of t.blocks) {
    out.push('<table>');
    if (b.caption) out.push(`<caption>${escapeHtml(b.caption)}</caption>`);
    out.push(
      `<tr>${b.header.map((h, i) => `<th${(TEXT_COLUMNS[t.id] ?? []).includes(i) ? ' class="text"' : ''}>${escapeHtml(h)}</th>`).join('')}</tr>`,
    );
    for (const r of b.rows) {
      out.push(
        `<tr>${r.cells
          .map((c, i) => {
            const share = r.shares?.[i] ?? null;
            const style = share !== null ? ` style="background:${fairShareColor(share)}"` : '';
            const cls = t.id === 'data-plane' && i === 3 ? ' class="wrap"' : (TEXT_COLUMNS[t.id] ?? []).includes(i) ? ' class="text"' : '';
            return i === 0 ? `<td${cls}>${escapeHtml(c)}</td>` : `<td${style}${cls}>${escapeHtml(c)}</td>`;
          })
          .join('')}</tr>`,
      );
    }
    out.push('</table>');
  }
  out.push('</div></section>');
  return out.join('\n');
}

/**
 * Heat maps (rows = queue, columns = rate) per table column, side by side: over the sweep's own
 * conditions (nothing for a single condition), or over a given grid (paper Fig. 6's, whatever was measured).
 */
export function heatMapsSection(agg: Aggregate, grid?: { readonly rates: readonly number[]; readonly queues: readonly number[] }): string {
  const rates = grid ? [...grid.rates] : [...new Set(agg.conditions.map((c) => c.rateBitsPerSec))].sort((a, b) => a - b);
  const queues = grid ? [...grid.queues] : [...new Set(agg.conditions.map((c) => c.queueBytes))].sort((a, b) => a - b);
  if (!grid && rates.length * queues.length < 2) return '';
  const maps = agg.columns.map((col) => {
    const values = queues.map((q) =>
      rates.map((r) => {
        const cond = agg.conditions.find((c) => c.rateBitsPerSec === r && c.queueBytes === q);
        return cond ? (cellOf(agg, cond.key, col.key)?.metrics.percentOfFairShare?.median ?? null) : null;
      }),
    );
    const notes = queues.map((q) =>
      rates.map((r) => {
        const cond = agg.conditions.find((c) => c.rateBitsPerSec === r && c.queueBytes === q);
        const s = cond ? cellOf(agg, cond.key, col.key)?.metrics.percentOfFairShare : undefined;
        return s && s.n > 1 ? `${s.min.toFixed(0)}–${s.max.toFixed(0)}` : null;
      }),
    );
    return heatMap({
      title: `${columnTitle(col)}: % of fair share`,
      rowLabels: queues.map(bytesLabel),
      colLabels: rates.map(rateLabel),
      values,
      notes,
      rowTitle: 'queue',
      colTitle: 'bottleneck rate',
    });
  });
  return `<h2 id="heat">Fair share over the sweep</h2><p class="note">Median % of fair share per condition (min–max under it). Red: the flow got less than its share; blue: more (taken from the others).</p><div class="heat">${maps.join('')}</div>`;
}

/** Moving average over `k` points (centred), keeping nulls out. */
function smooth(values: readonly number[], k: number): number[] {
  if (k <= 1) return [...values];
  const half = Math.floor(k / 2);
  return values.map((_, i) => {
    let sum = 0;
    let n = 0;
    for (let j = Math.max(0, i - half); j <= Math.min(values.length - 1, i + half); j++) {
      sum += values[j] as number;
      n++;
    }
    return sum / n;
  });
}

function runCharts(run: RunSummary): string {
  const p = run.plot;
  const k = Math.max(1, Math.round(SMOOTH_S / p.binS));
  const series: LineSeries[] = [];
  let pi = 0;
  let bi = 0;
  const colorOf = new Map<string, string>();
  for (const f of run.flows.length > 0 ? run.flows : Object.keys(p.throughput).map((id) => ({ id, label: id, role: 'bulk' as const }))) {
    const c =
      f.role === 'player'
        ? PLAYER_COLORS[pi++ % PLAYER_COLORS.length]
        : f.role === 'control'
          ? CONTROL_COLOR
          : BULK_COLORS[bi++ % BULK_COLORS.length];
    colorOf.set(f.id, c as string);
    const tp = p.throughput[f.id] ?? [];
    const sm = smooth(tp, k);
    series.push({
      name: `${f.label} throughput`,
      color: c as string,
      points: p.t.map((t, i) => [t + p.binS / 2, (sm[i] ?? 0) / 1e6] as const),
      width: 1.8,
    });
  }
  run.players.forEach((pl, i) => {
    series.push({
      name: `${pl.label} bitrate (ABR choice)`,
      color: BITRATE_COLORS[i % BITRATE_COLORS.length] as string,
      points: pl.series.t.map(
        (t, j) => [t - p.startS, pl.series.bitrateBps[j] == null ? null : (pl.series.bitrateBps[j] as number) / 1e6] as const,
      ),
      dash: '5 3',
      step: true,
      width: 1.4,
    });
  });
  const xMax = Math.max(...p.phases.map((ph) => ph.toS), p.t[p.t.length - 1] ?? 0);
  const bands: Array<{ from: number; to: number; color: string; label?: string }> = [];
  for (const ph of p.phases) if (ph.name !== 'both') bands.push({ from: ph.fromS, to: ph.toS, color: '#f6f1e4', label: `${ph.name} only` });
  const both = p.phases.find((ph) => ph.name === 'both');
  if (run.window && both) bands.push({ from: both.fromS, to: run.window.fromS - p.startS, color: '#eeeeee', label: 'warm-up (discarded)' });
  // Band labels only on the first chart: they would cover the lines of the smaller ones.
  const unlabelled = bands.map((b) => ({ from: b.from, to: b.to, color: b.color }));
  const hLines =
    run.window && run.fairShareBitsPerSec !== null
      ? [
          {
            y: run.fairShareBitsPerSec / 1e6,
            label: `fair share ${mbit(run.fairShareBitsPerSec)} Mbit/s`,
            color: '#777',
            fromX: run.window.fromS - p.startS,
            toX: run.window.toS - p.startS,
          },
        ]
      : [];
  const charts: string[] = [];
  charts.push(
    lineChart({
      title: `Throughput per flow (${SMOOTH_S} s average) and video bitrate`,
      xLabel: 'time since start, s',
      yLabel: 'Mbit/s',
      series,
      hLines,
      bands,
      xMin: 0,
      xMax,
      yMax: (run.rateBitsPerSec / 1e6) * 1.1,
      height: 270,
    }),
  );
  if (run.players.length > 0) {
    charts.push(
      lineChart({
        title: 'Video buffer level',
        xLabel: 'time since start, s',
        yLabel: 'seconds',
        series: run.players.map((pl, i) => ({
          name: pl.label,
          color: PLAYER_COLORS[i % PLAYER_COLORS.length] as string,
          points: pl.series.t.map((t, j) => [t - p.startS, pl.series.bufferS[j] ?? null] as const),
        })),
        bands: unlabelled,
        xMin: 0,
        xMax,
        height: 200,
      }),
    );
  }
  if (p.queueT.length > 0) {
    charts.push(
      lineChart({
        title: `Bottleneck queue backlog (limit ${bytesLabel(run.queueBytes)})`,
        xLabel: 'time since start, s',
        yLabel: 'KB',
        series: [
          { name: 'backlog', color: '#7f7f7f', points: p.queueT.map((t, i) => [t, (p.queueBytes[i] ?? 0) / 1024] as const), width: 1.2 },
        ],
        bands: unlabelled,
        xMin: 0,
        xMax,
        yMax: (run.queueBytes / 1024) * 1.1,
        height: 170,
      }),
    );
  }
  return `<div class="charts">${charts.join('')}</div>`;
}

function runHead(run: RunSummary): string {
  const bits: string[] = [`<b>${escapeHtml(run.variant.name)}</b> r${run.repeat}`];
  if (run.status !== 'ok') bits.push(`<span class="bad">${escapeHtml(run.status)}${run.error ? `: ${escapeHtml(run.error)}` : ''}</span>`);
  if (!run.window) bits.push(`<span class="bad">no window: ${escapeHtml(run.windowProblem ?? '?')}</span>`);
  for (const f of run.flows) bits.push(`${escapeHtml(f.label)} ${f.percentOfFairShare.toFixed(1)}%`);
  for (const p of run.players) {
    bits.push(
      `${escapeHtml(p.label)}: ${p.bitrateMedianBps === null ? '–' : mbit(p.bitrateMedianBps)} Mbit/s, ${stallLabel(p.rebufferCount, p.rebufferS)}, mode ${escapeHtml(p.mode ?? '?')}`,
    );
  }
  for (const f of run.flows) if (f.trains) bits.push(`${escapeHtml(f.label)} ${escapeHtml(trainLabel(f.trains))}`);
  if (run.window) bits.push(`window ${run.window.durationS.toFixed(0)} s`);
  return bits.join(' · ');
}

function runDetails(run: RunSummary, open: boolean): string {
  const warnings =
    run.warnings.length > 0 ? `<ul class="problems">${run.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : '';
  const players = run.players
    .map(
      (p) =>
        `<li>${escapeHtml(p.label)}: asked ${escapeHtml(p.requestedMode ?? '?')}, ran <b>${escapeHtml(p.mode ?? '?')}</b> (${escapeHtml(p.modeReason ?? '')}); ` +
        `startup ${p.startupDelayS === null ? '–' : p.startupDelayS.toFixed(1)} s; switches ${p.switches ?? '–'} rendered / ${p.downloadSwitches ?? '–'} downloaded (${p.videoSegments} video segments); ` +
        `video transfers ${p.transfers.videoCount} (median ${cellText(p.transfers.videoBytes, 2, 1 / (1024 * 1024))} MB, model chunk ${cellText(p.transfers.targetChunkBytes, 2, 1 / (1024 * 1024))} MB, cancelled ${p.transfers.cancelled}); ` +
        (p.transfers.trains > 0
          ? `trains ${p.transfers.trains} (median ${cellText(p.transfers.trainBytes, 2, 1 / (1024 * 1024))} MB); `
          : '') +
        `RTT estimate ${cellText(p.estimates.rttMs, 0)} ms</li>`,
    )
    .join('');
  const tcp = Object.entries(run.tcp)
    .map(
      ([port, t]) =>
        `<li>port ${escapeHtml(port)}: ${t.connections} connection(s), cwnd ${cellText(t.cwnd, 0)}, RTT ${cellText(t.rttMs, 0)} ms, ${escapeHtml(t.congestionControls.join(','))}, ${t.retransmits} retransmits</li>`,
    )
    .join('');
  const c = run.cpu;
  const cpu = c
    ? `<li>CPU: ${(100 * c.meanIdle).toFixed(0)} % idle (worst 10 s ${(100 * c.worst10sIdle).toFixed(0)} %${c.saturated ? ', saturated' : ''}); CPU seconds ${Object.entries(
        c.classCpuS,
      )
        .map(([k, v]) => `${escapeHtml(k)} ${v.toFixed(1)}`)
        .join(', ')}, other work ${c.otherCpuS.toFixed(1)}</li>`
    : '';
  return `<details${open ? ' open' : ''}><summary class="run-head">${runHead(run)}</summary>
${runCharts(run)}
<ul>${players}${tcp}${cpu}<li>queue backlog ${cellText(run.queue.backlogBytes, 0, 1 / 1024)} KB, ${run.queue.drops} drops in the window; total ${run.totalBitsPerSec === null ? '–' : mbit(run.totalBitsPerSec, 3)} Mbit/s (${run.utilization === null ? '–' : (run.utilization * 100).toFixed(1)}% of the rate)</li></ul>
${warnings}<p class="note">Raw data: <code>${escapeHtml(run.dir)}/</code></p></details>`;
}

export function buildReportHtml(
  manifest: AbManifest,
  agg: Aggregate,
  runs: readonly RunSummary[],
  gaps: ReportGaps = { missing: [], unreadable: [] },
): string {
  const names = [...new Set(agg.columns.map((c) => c.flow))].filter((n) => n !== 'control');
  const title = `A/B evaluation: ${names.join(' vs ') || 'control only'}`;
  const tables = summaryTables(agg);
  const problems = problemLines(agg, gaps);
  const sections: string[] = [];
  // The fair-share table first, then the sweep's heat maps, the small tables side by side, the data plane in full width.
  const first = tables[0];
  if (first) sections.push(renderTableHtml(first));
  sections.push(heatMapsSection(agg));
  const wide = new Set(['data-plane']);
  sections.push(
    `<div class="cards">${tables
      .slice(1)
      .filter((t) => !wide.has(t.id))
      .map(renderTableHtml)
      .join('\n')}</div>`,
  );
  for (const t of tables.slice(1).filter((x) => wide.has(x.id))) sections.push(renderTableHtml(t));
  if (problems.length > 0)
    sections.push(`<h2 id="problems">Problems</h2><ul class="problems">${problems.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>`);
  sections.push(
    '<h2 id="runs">Runs</h2><p class="note">Each run: throughput of every flow on the wire after the bottleneck with the fair-share line over the measured window, the video bitrate (dashed), buffer levels and the bottleneck queue. Click a run to open it.</p>',
  );
  let firstOfCondition = true;
  for (const r of byRate(agg)) {
    for (const q of r.queues) {
      sections.push(`<h3>${escapeHtml(rateLabel(r.rate))}, queue ${escapeHtml(bytesLabel(q.queue))}</h3>`);
      const mine = runs.filter((x) => x.conditionKey === q.key);
      const seen = new Set<string>();
      for (const run of mine) {
        const open = firstOfCondition && !seen.has(run.variant.name);
        seen.add(run.variant.name);
        sections.push(runDetails(run, open));
      }
      firstOfCondition = false;
    }
  }
  return htmlPage(title, [
    `<p>Command: <code>npx sprint ab ${escapeHtml(manifest.argv.join(' '))}</code></p>`,
    `<p class="settings">${escapeHtml(settingsSentence(manifest))}</p>`,
    `<p class="note">${escapeHtml(provenanceSentence(manifest))}</p>`,
    ...sections,
    '<p class="note">Generated by <code>npx sprint report</code> from the raw data in this folder.</p>',
  ]);
}

/** A self-contained page (the reports' CSS inline, no scripts) around body parts already in HTML. */
export function htmlPage(title: string, body: readonly string[]): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${CSS}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body.join('\n')}
</main></body></html>
`;
}
