// The name of a BW-x ABR preset, `bw-<x>` (paper §V-C: the video bitrate set
// to x % of the measured throughput), read in one place for the player that
// installs the rule (player/abr/presets.ts) and the harness that reports a
// BW-x player's expected share (demo/harness/expected-share.ts). Pure.

/** x of a `bw-<x>` preset name (up to 4 digits), or null for any other value. */
export function bwPercentOf(preset: unknown): number | null {
  if (typeof preset !== 'string') return null;
  const m = /^bw-(\d{1,4})$/.exec(preset);
  return m ? Number(m[1]) : null;
}
