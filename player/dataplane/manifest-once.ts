/**
 * The manifest, fetched once for every mode check of one player (Sprint's
 * protocol detection reads the Resource Timing entry of this fetch; Sprint-x
 * inspects its text), instead of once per check. Credentials as dash.js's
 * own load (`same-origin`), uncached. Never rejects.
 */
export type ManifestText = { ok: true; text: string } | { ok: false; problem: string; network: boolean };

export function manifestOnce(url: string): () => Promise<ManifestText> {
  let pending: Promise<ManifestText> | null = null;
  return () => {
    pending ??= (async (): Promise<ManifestText> => {
      try {
        const res = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
        const text = await res.text();
        return res.ok ? { ok: true, text } : { ok: false, problem: `manifest fetch answered HTTP ${res.status}`, network: false };
      } catch (e) {
        return { ok: false, problem: `manifest fetch failed: ${(e as Error).message}`, network: true };
      }
    })();
    return pending;
  };
}
