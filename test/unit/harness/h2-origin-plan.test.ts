// `sprint ab --origin h2|nginx-h2` (demo/harness/ab-cli.ts, plan.ts, run.ts):
// the players' origin over HTTPS + HTTP/2 is parsed and recorded in the plan,
// the player URLs become https, the report names the origin, and the
// helpers that pick the origin's program and TLS say the right thing. Nothing
// here runs a testbed.

import { parseAbArgs } from '../../../demo/harness/ab-cli';
import { originIsH2, originIsNginx } from '../../../demo/harness/plan';
import { playerUrl } from '../../../demo/harness/run';

describe('sprint ab --origin for HTTP/2', () => {
  it('parses h2 and nginx-h2 into the plan', () => {
    expect(parseAbArgs(['--origin', 'h2']).plan.settings.origin).toBe('h2');
    expect(parseAbArgs(['--origin', 'nginx-h2']).plan.settings.origin).toBe('nginx-h2');
    expect(() => parseAbArgs(['--origin', 'h3'])).toThrow(/--origin: "h3" must be one of ours, nginx, h2, nginx-h2/);
  });

  it('says which origins are nginx and which speak HTTP/2', () => {
    expect([undefined, 'nginx', 'h2', 'nginx-h2'].map((o) => originIsH2(o as never))).toEqual([false, false, true, true]);
    expect([undefined, 'nginx', 'h2', 'nginx-h2'].map((o) => originIsNginx(o as never))).toEqual([false, true, false, true]);
  });

  it('builds https player URLs for an HTTP/2 origin and http ones otherwise', () => {
    const h2 = parseAbArgs(['--origin', 'nginx-h2', '--players', 'sprint', '--page-query', 'transport=fetch']).plan.settings;
    expect(playerUrl('10.201.1.2', 8001, h2, 'sprint', 'buffer', 'transport=fetch')).toBe(
      'https://10.201.1.2:8001/?set=demo&layout=unchunked&mode=sprint&abr=buffer&transport=fetch',
    );
    const h1 = parseAbArgs(['--origin', 'nginx']).plan.settings;
    expect(playerUrl('10.201.1.2', 8001, h1, 'stock', 'buffer')).toMatch(/^http:\/\/10\.201\.1\.2:8001\//);
  });
});
