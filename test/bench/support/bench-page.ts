/**
 * The demo page's query for a benchmark playback run: one content set's top
 * rung (`quality=top`: ABR off), unchunked, in the data plane a benchmark
 * mode names — `sprint` on the extension's sockets, `sprint-fetch` on the
 * page's fetch.
 */
export function topRungQuery(set: string, mode: string): URLSearchParams {
  const q = new URLSearchParams({ set, layout: 'unchunked', mode: mode === 'sprint-fetch' ? 'sprint' : mode, quality: 'top' });
  if (mode === 'sprint-fetch') q.set('transport', 'fetch');
  if (mode === 'sprint') q.set('transport', 'extension');
  return q;
}
