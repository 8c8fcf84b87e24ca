// One A/B run on the emulated bottleneck (paper §V-A): builds a testbed for
// one network condition, starts one origin process per flow in the server
// namespace (player i on port 8001+i, bulk flow j on 9001+j, so the wire
// capture tells flows apart by server port), one headless Chromium in the
// client namespace with one window per player, and the bulk downloads; follows
// the schedule (schedule.ts); polls every player once a second; captures the
// wire (100 ms bins per port), the server's TCP state (ss) and the bottleneck
// queue (tc) throughout; then stops everything and destroys the testbed — on
// success, on error and on Ctrl-C (the AbortSignal; the testbed's own exit
// hooks kill what is left if the harness dies).
//
// Raw files in the run directory: run.json (what ran, when, and how it ended),
// wire.jsonl, ss.jsonl, qdisc.jsonl, cpu.jsonl (the CPU the run had,
// cpu-sampler.ts), player-<port>.jsonl, bulk-<port>.jsonl,
// origin-<port>.log, browser.log (with `--packets`, packet-capture.ts: also
// packets-server.pcap.gz and packets-client.pcap.gz; with `--primer`, primer.ts: also the
// primer's bulk-9900.jsonl and origin-9900.log, started before the
// schedule). run-summary.ts turns them into figures.
//
// With `--preload-pages` every player page is opened held once the browser is
// up, before the primer or any flow, loads on the idle link, and the players'
// origins close the connections it used (preload-pages.ts); at the video
// start each page is released and creates its player, whose manifest and
// media connections open behind the queue like any other.
//
// With an HTTPS + HTTP/2 players' origin (`--origin h2` or `nginx-h2`) each
// run makes its own self-signed certificate for the server address (in a
// private temporary directory removed when the run ends), the player URLs are
// https, and Chromium trusts that one certificate by its SPKI hash
// (--ignore-certificate-errors-spki-list), nothing else.
//
// Size (about 660 lines): one run's steps in order, each paired with its
// teardown; the pieces themselves (testbed, origins, browser, capture,
// schedule, page preload, summary) live in their own modules.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { removeRawFiles } from './compact';
import * as os from 'os';
import * as path from 'path';
import { WireCapture, WireCaptureSummary } from '../testbed/capture';
import { CongestionCheck } from '../testbed/congestion';
import { DelayStats } from '../testbed/delay-element';
import { distScript, OriginProcess, startOriginProcess } from '../testbed/origin-process';
import { startCpuSampler } from '../testbed/cpu-sampler';
import { PACKET_FILES, PacketCapture, PacketCaptureSummary } from '../testbed/packet-capture';
import { startQdiscSampler } from '../testbed/qdisc-sampler';
import { SamplerSummary } from '../testbed/sampler';
import { startSsSampler } from '../testbed/ss-sampler';
import { createTestbed, ResolvedTopology, Testbed } from '../testbed/topology';
import { repoRoot } from '../testbed/delay-element';
import { spkiTrustFlags } from '../chromium-flags';
import { makeSelfSignedCert } from '../server/tls-cert';
import { CHROMIUM_FLAGS, launchBrowserInNamespace, NamespaceBrowser } from './browser';
import { buildRecord } from './build-stamp';
import { HostRecord, hostNow, sourceVersion } from './host-info';
import type { SprintExtension } from './extension';
import { CommonSettings, FlowSpec, flowsOf, isPeerMode, originIsH2, runLengthS, RunSpec } from './plan';
import { PlayerSession } from './player-session';
import { preloadPages, PreloadTimes } from './preload-pages';
import { PRIMER_PORT, primerLatestStopOffsetS, primerPlaybackDecision, PrimerStoppedBy, primerStopOffsetS } from './primer';
import { PhaseName } from './schedule';
import { RunAborted, sleepUntil } from './sleep-until';
import { TeardownStack } from './teardown';
import { currentContent, type RunContent } from './run-content';

export { RunAborted } from './sleep-until';

export const RUN_FORMAT = 'sprint-ab-run';
export const RUN_VERSION = 1;

/** How long a player page may take to create `window.sprintPlayer` before the run fails. */
export const PLAYER_READY_TIMEOUT_S = 60;
/** When to check the server's congestion control on the live flows first, seconds after the competition starts (congestionCheckOffsetsS). */
export const CC_CHECK_AFTER_S = 5;

/**
 * When to check the server's congestion control, seconds from the schedule's
 * start: CC_CHECK_AFTER_S after the competition starts, then at twice the
 * delay each time while no connection of the run's flows is established yet
 * (behind a multi-second queue even a SYN-ACK waits in it), the last at the
 * end of the warm-up (`warmupS` after the competition starts).
 */
export function congestionCheckOffsetsS(bothFromS: number, warmupS: number): number[] {
  const last = Math.max(CC_CHECK_AFTER_S, warmupS);
  const out: number[] = [];
  for (let after = CC_CHECK_AFTER_S; after < last; after *= 2) out.push(bothFromS + after);
  out.push(bothFromS + last);
  return out;
}

export type RunStatus = 'ok' | 'failed' | 'interrupted';

/** run.json: everything needed to rebuild the run's figures from its raw files. */
export interface RunRecord {
  readonly format: typeof RUN_FORMAT;
  readonly version: typeof RUN_VERSION;
  readonly spec: RunSpec;
  readonly settings: CommonSettings;
  readonly flows: readonly FlowSpec[];
  readonly status: RunStatus;
  readonly error: string | null;
  readonly testbed: {
    readonly id: string;
    readonly namespaces: readonly string[];
    readonly topology: ResolvedTopology;
    readonly serverAddr: string;
  } | null;
  readonly times: {
    /** Epoch seconds. */
    readonly setupStartS: number;
    /** When the schedule started (null if the run failed before). */
    readonly scheduleStartS: number | null;
    /** Phases as scheduled from scheduleStartS (epoch seconds); the flows' actual start/stop times follow. */
    readonly phases: ReadonlyArray<{ readonly name: PhaseName; readonly fromS: number; readonly toS: number }>;
    /** When flows of each kind were started and stopped (epoch seconds). */
    readonly videoStartS: number | null;
    readonly videoStopS: number | null;
    readonly bulkStartS: number | null;
    readonly bulkStopS: number | null;
    /** When the primer (primer.ts, `--primer`) was started and stopped (epoch seconds); absent without one. */
    readonly primerStartS?: number | null;
    readonly primerStopS?: number | null;
    /**
     * With `--primer LEAD:playing+OVERLAP`: when the last player started
     * playing (epoch seconds; null if one had not when the primer stopped),
     * and what stopped the primer: OVERLAP after that ('playing'), OVERLAP
     * after the flows started because the players were playing by then
     * ('schedule'), or its latest time before measuring ('latest').
     */
    readonly primerPlayersPlayingS?: number | null;
    readonly primerStoppedBy?: PrimerStoppedBy | null;
    /**
     * With `--preload-pages`: when every held page was ready and when their
     * origins were last asked to close the pages' connections (epoch
     * seconds), and how many connections to the players' ports `ss` still
     * showed established after that (0 when it worked; more gets a warning).
     */
    readonly pagesPreloadedS?: number | null;
    readonly pageCloseRequestedS?: number | null;
    readonly pageConnectionsLeft?: number | null;
    readonly endS: number;
  };
  readonly congestion: CongestionCheck | null;
  readonly capture: WireCaptureSummary | null;
  /** With `--packets`: the header captures on both sides of the queue (packet-capture.ts); absent without. */
  readonly packets?: readonly PacketCaptureSummary[];
  readonly samplers: readonly SamplerSummary[];
  readonly bulkExitCodes: Readonly<Record<string, number | null>>;
  readonly delay: readonly DelayStats[] | null;
  readonly browser: { readonly version: string; readonly flags: readonly string[] } | null;
  readonly pageQuery: string;
  /** The machine and source the run was measured with (host-info.ts): load average at start and end, cores, kernel, commit. */
  readonly host: HostRecord;
  /** The content the players played (run-content.ts): null when the set was not readable; absent in runs recorded before it was kept. */
  readonly content?: RunContent | null;
  /** Runs the harness made at once with this one (`--parallel`); absent = 1. */
  readonly concurrentRuns?: number;
  readonly warnings: readonly string[];
}

export interface RunOptions {
  readonly resultsDir: string;
  readonly spec: RunSpec;
  readonly settings: CommonSettings;
  /** Extra query parameters for every player page (e.g. "sprintTransport=fetch"). */
  readonly pageQuery?: string;
  /** Aborts the run (Ctrl-C): it stops early, cleans up and is recorded as interrupted. */
  readonly signal?: AbortSignal;
  /** Diagnostic lines. */
  readonly log?: (line: string) => void;
  /** Seconds of the schedule done so far, once a second. */
  readonly onTick?: (scheduleElapsedS: number) => void;
  /** Extra Chromium flags. */
  readonly chromiumArgs?: readonly string[];
  /** Load the Sprint extension in the browser (plans with sprint players). */
  readonly extension?: SprintExtension | null;
  /** How many runs the harness makes at once (`--parallel`), recorded in run.json; default 1. */
  readonly concurrentRuns?: number;
}

/** The player page URL for one flow. */
export function playerUrl(
  serverAddr: string,
  port: number,
  settings: CommonSettings,
  mode: string,
  abr: string,
  pageQuery = '',
  playerQuery = '',
): string {
  const q = new URLSearchParams({ set: settings.contentSet, layout: settings.layout, mode, abr });
  for (const [k, v] of new URLSearchParams(pageQuery)) q.set(k, v);
  for (const [k, v] of new URLSearchParams(playerQuery)) q.set(k, v);
  // Peers have their own page (demo/page/peer.html), which picks its bundle by mode.
  const page = isPeerMode(mode) ? 'peer.html' : '';
  return `${originIsH2(settings.origin) ? 'https' : 'http'}://${serverAddr}:${port}/${page}?${q.toString()}`;
}

/** A flow with a player (its page is opened in the browser). */
type PlayerFlow = FlowSpec & { readonly player: NonNullable<FlowSpec['player']> };

/** Runs one RunSpec; always writes run.json; resolves with it (status says how it ended). */
export async function runOne(options: RunOptions): Promise<RunRecord> {
  const { spec, settings } = options;
  // Stops the schedule early: Ctrl-C (options.signal) or a browser that went away.
  const stopEarly = new AbortController();
  const signal = stopEarly.signal;
  const onOuterAbort = (): void => stopEarly.abort();
  if (options.signal?.aborted) stopEarly.abort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let browserLost: string | null = null;
  // A page error before the player exists: the page cannot start (fail at once, not after the ready timeout).
  let playerBroken: string | null = null;
  let closingBrowser = false;
  const log = options.log ?? ((): void => undefined);
  const dir = path.join(options.resultsDir, spec.dir);
  mkdirSync(dir, { recursive: true });
  // A run made again (--resume after a failure) starts from no raw file: the writers append.
  removeRawFiles(dir);
  const file = (name: string): string => path.join(dir, name);
  const flows = flowsOf(spec.variant, settings.bulkFlows);
  const schedule = settings.schedule;
  const warnings: string[] = [];
  const hostStart = hostNow();
  const source = sourceVersion(repoRoot());
  const build = buildRecord(path.join(repoRoot(), 'dist'));
  const setupStartS = Date.now() / 1000;

  let tb: Testbed | null = null;
  let browser: NamespaceBrowser | null = null;
  let browserInfo: RunRecord['browser'] = null;
  const sessions: PlayerSession[] = [];
  const bulkPids = new Map<string, number>();
  const bulkDone = new Map<string, Promise<number | null>>();
  const bulkExitCodes: Record<string, number | null> = {};
  let captureSummary: WireCaptureSummary | null = null;
  const packetSummaries: PacketCaptureSummary[] = [];
  const samplerSummaries: SamplerSummary[] = [];
  let congestion: CongestionCheck | null = null;
  let delayStats: DelayStats[] | null = null;
  let scheduleStartS: number | null = null;
  const phases: Array<{ name: PhaseName; fromS: number; toS: number }> = [];
  const kindTimes = {
    videoStartS: null as number | null,
    videoStopS: null as number | null,
    bulkStartS: null as number | null,
    bulkStopS: null as number | null,
  };
  const primerTimes = { primerStartS: null as number | null, primerStopS: null as number | null };
  const preloadTimes: PreloadTimes = { pagesPreloadedS: null, pageCloseRequestedS: null, pageConnectionsLeft: null };
  /** Preloaded pages by flow id, released at the video start. */
  const held = new Map<string, PlayerSession>();
  /** The players' origin processes by port (SIGUSR2 after preloading). */
  const playerOrigins = new Map<number, OriginProcess>();
  const primerPlaying = settings.primer?.until === 'playing';
  const primerPlayingTimes = { primerPlayersPlayingS: null as number | null, primerStoppedBy: null as PrimerStoppedBy | null };
  /** The primer as a bulk download of its own (not one of the run's flows). */
  const primerFlow: FlowSpec | null = settings.primer
    ? { id: String(PRIMER_PORT), port: PRIMER_PORT, slot: 'bulk', role: 'bulk', label: 'primer', player: null }
    : null;
  /** The latest the primer stops, seconds from the schedule's start (primer.ts). */
  const primerLatestStopS = !settings.primer
    ? 0
    : primerPlaying
      ? primerLatestStopOffsetS(schedule, settings.warmupS, spec.condition)
      : primerStopOffsetS(schedule, settings.primer);
  let status: RunStatus = 'ok';
  let error: string | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  /** The flag trusting the run's certificate (an HTTP/2 players' origin). */
  let trustFlags: string[] = [];
  /** How to stop what has been started, newest first (teardown.ts). */
  const teardown = new TeardownStack();

  const startBulk = (flow: FlowSpec, durationS: number): void => {
    if (!tb) return;
    const child = tb.exec(
      tb.clientNs,
      process.execPath,
      [
        distScript('demo/testbed/bulk-client.js'),
        '--host',
        tb.serverAddr,
        '--port',
        String(flow.port),
        '--duration',
        String(Math.ceil(durationS + 30)),
        '--out',
        file(`bulk-${flow.port}.jsonl`),
        '--label',
        flow.label,
      ],
      { label: `bulk:${flow.port}` },
    );
    bulkPids.set(flow.id, child.pid as number);
    bulkDone.set(flow.id, new Promise((resolve) => child.once('exit', (code) => resolve(code))));
    teardown.push(`bulk ${flow.id}`, () => (flow.id in bulkExitCodes ? undefined : stopBulk(flow)));
  };
  /** Stops a bulk download once (the schedule, the primer's check and the teardown may all ask). */
  const bulkStopping = new Map<string, Promise<void>>();
  const stopBulk = (flow: FlowSpec): Promise<void> => {
    const pid = bulkPids.get(flow.id);
    const testbed = tb;
    if (pid === undefined || !testbed) return Promise.resolve();
    let stopping = bulkStopping.get(flow.id);
    if (!stopping) {
      stopping = (async () => {
        await testbed.stop(pid, 3000);
        bulkExitCodes[flow.id] = (await bulkDone.get(flow.id)) ?? null;
      })();
      bulkStopping.set(flow.id, stopping);
    }
    return stopping;
  };

  /** The player page's URL for a flow (held with `--preload-pages`). */
  const pageUrl = (testbed: Testbed, f: PlayerFlow): string => {
    const url = new URL(playerUrl(testbed.serverAddr, f.port, settings, f.player.mode, f.player.abr, options.pageQuery, f.player.query));
    if (settings.pagePreload) url.searchParams.set('hold', '1');
    return url.toString();
  };
  const sessionOptions = (testbed: Testbed, f: PlayerFlow) => ({
    url: pageUrl(testbed, f),
    out: file(`player-${f.port}.jsonl`),
    label: f.label,
    port: f.port,
    mode: f.player.mode,
    abr: f.player.abr,
  });
  /** A player session is closed through the browser while it and the testbed are up, else only its files are finished. */
  const closeOnTeardown = (session: PlayerSession): void =>
    teardown.push(`player ${session.options.label}`, () =>
      browser && !browserLost && tb && !tb.destroyed ? session.close() : session.abandon(),
    );
  try {
    tb = await createTestbed({
      rateBitsPerSec: spec.condition.rateBitsPerSec,
      queueBytes: spec.condition.queueBytes,
      congestionControl: settings.congestionControl,
      slowStartAfterIdle: settings.slowStartAfterIdle,
      delayMs: settings.delayMs > 0 ? { down: settings.delayMs, up: settings.delayMs } : undefined,
      log,
    });
    const testbed = tb;
    teardown.push('testbed', () => testbed.destroy());
    if (testbed.delay) {
      const element = testbed.delay;
      teardown.push('delay element', async () => (delayStats = await element.stop()));
    }
    let tlsArgs: string[] = [];
    if (originIsH2(settings.origin)) {
      const identity = makeSelfSignedCert({ hosts: [tb.serverAddr] });
      const tlsDir = mkdtempSync(path.join(os.tmpdir(), 'sprint-ab-tls-'));
      teardown.push('certificate', () => rmSync(tlsDir, { recursive: true, force: true }));
      const certFile = path.join(tlsDir, 'cert.pem');
      const keyFile = path.join(tlsDir, 'key.pem');
      writeFileSync(certFile, identity.cert);
      writeFileSync(keyFile, identity.key, { mode: 0o600 });
      tlsArgs = ['--h2', '--cert', certFile, '--key', keyFile];
      trustFlags = spkiTrustFlags([identity.spkiHash]);
      log(`players' origin over HTTPS + HTTP/2 (${settings.origin}), certificate SPKI sha256 ${identity.spkiHash}`);
    }
    for (const flow of flows) {
      const logPath = file(`origin-${flow.port}.log`);
      const player = flow.role === 'player';
      const nginx = player && (settings.origin === 'nginx' || settings.origin === 'nginx-h2');
      const command = nginx
        ? {
            command: process.execPath,
            args: [
              distScript('demo/server/nginx-origin.js'),
              '--host',
              tb.serverAddr,
              '--port',
              String(flow.port),
              '--log',
              logPath,
              ...tlsArgs,
            ],
          }
        : undefined;
      const origin = await startOriginProcess(tb, { port: flow.port, logPath, command, extraArgs: player && !nginx ? tlsArgs : [] });
      teardown.push(`origin ${origin.port}`, () => origin.stop());
      if (player) playerOrigins.set(flow.port, origin);
    }
    if (primerFlow) {
      const origin = await startOriginProcess(tb, { port: primerFlow.port, logPath: file(`origin-${primerFlow.port}.log`) });
      teardown.push(`origin ${origin.port}`, () => origin.stop());
    }
    const wire = await WireCapture.start(tb, { out: file('wire.jsonl') });
    teardown.push('capture', async () => (captureSummary = await wire.stop()));
    if (settings.packets) {
      for (const side of ['server', 'client'] as const) {
        const packets = await PacketCapture.start(tb, side, file(PACKET_FILES[side]));
        teardown.push(`packet capture (${side} side)`, async () => {
          const summary = await packets.stop();
          packetSummaries.push(summary);
          if (summary.droppedByKernel)
            warnings.push(
              `${summary.file}: tcpdump reported ${summary.droppedByKernel} packet(s) dropped by the kernel (not in the capture)`,
            );
        });
      }
    }
    const ss = startSsSampler(tb, { out: file('ss.jsonl'), serverPorts: flows.map((f) => f.port) });
    teardown.push('sampler', async () => samplerSummaries.push(await ss.stop()));
    const qdisc = startQdiscSampler(tb, { out: file('qdisc.jsonl') });
    teardown.push('sampler', async () => samplerSummaries.push(await qdisc.stop()));
    const cpu = startCpuSampler({ out: file('cpu.jsonl') });
    teardown.push('sampler', async () => samplerSummaries.push(await cpu.stop()));
    const needBrowser = flows.some((f) => f.role === 'player');
    if (needBrowser) {
      const extraArgs = [...trustFlags, ...(options.chromiumArgs ?? [])];
      const launched = await launchBrowserInNamespace(tb, { logPath: file('browser.log'), extraArgs, extension: options.extension });
      browser = launched;
      teardown.push('browser', () => launched.close());
      browserInfo = {
        version: await browser.browser.version(),
        flags: [...CHROMIUM_FLAGS, ...(options.extension ? [`--load-extension=${options.extension.unpacked}`] : []), ...extraArgs],
      };
      log(`browser ${browserInfo.version} (pid ${browser.pid})`);
      browser.browser.on('disconnected', () => {
        if (closingBrowser || browserLost) return;
        browserLost = `the browser went away (crashed or was killed) ${scheduleStartS === null ? 'during set-up' : `${(Date.now() / 1000 - scheduleStartS).toFixed(0)} s into the schedule`}; see browser.log`;
        stopEarly.abort();
      });
    }
    if (signal.aborted) throw new RunAborted();

    if (settings.pagePreload && browser && tb) {
      const testbed = tb;
      const players = flows.flatMap((f) => {
        if (f.slot !== 'video' || f.player === null) return [];
        const origin = playerOrigins.get(f.port);
        if (!origin) throw new Error(`--preload-pages: no origin process for player port ${f.port}`);
        return [{ id: f.id, originPid: origin.pid, session: sessionOptions(testbed, { ...f, player: f.player }) }];
      });
      const warning = await preloadPages({
        browser,
        testbed,
        players,
        times: preloadTimes,
        onHeld: (id, session) => {
          held.set(id, session);
          closeOnTeardown(session);
        },
        signal,
        log,
      });
      if (warning) warnings.push(warning);
      if (signal.aborted) throw new RunAborted();
    }

    // The primer fills the queue before anything of the run opens a connection (primer.ts).
    const runStartMs = Date.now();
    const players = flows.filter((f) => f.role === 'player').length;
    /** Stops the primer once; with `--primer …:playing+…` records what stopped it. */
    let primerStopping: Promise<void> | null = null;
    const stopPrimer = (by: PrimerStoppedBy | null): Promise<void> => {
      if (!primerFlow) return Promise.resolve();
      primerStopping ??= (async () => {
        primerTimes.primerStopS = Date.now() / 1000;
        if (by) primerPlayingTimes.primerStoppedBy = by;
        await stopBulk(primerFlow);
      })();
      return primerStopping;
    };
    /**
     * With `--primer …:playing+…`: stops the primer once it is due
     * (primer.ts); from the poll timer and from the schedule's events at
     * its earliest and latest time. `atLeastS` (seconds from the schedule's
     * start) is the event's own time, so the latest event always stops it.
     */
    const checkPrimer = (atLeastS = 0): Promise<void> => {
      if (!primerPlaying || !settings.primer || scheduleStartS === null) return Promise.resolve();
      if (primerStopping) return primerStopping;
      const decision = primerPlaybackDecision(schedule, settings.primer, primerLatestStopS, {
        players,
        playingSinceS: sessions.map((x) => x.playingSinceS),
        scheduleStartS,
        nowS: Math.max(Date.now() / 1000, scheduleStartS + atLeastS),
      });
      primerPlayingTimes.primerPlayersPlayingS = decision.lastPlayingS;
      return decision.stop ? stopPrimer(decision.stop) : Promise.resolve();
    };
    // Polls the players (none before the video flows start) and ticks progress from the primer's start on.
    pollTimer = setInterval(() => {
      for (const s of sessions) {
        void s.poll();
        if (!playerBroken && !s.last?.ready && s.pageErrors.length > 0 && Date.now() / 1000 - s.openedAtS > 5) {
          playerBroken = `player ${s.options.label} (port ${s.options.port}) cannot start: page error: ${s.pageErrors[0]} (${s.options.url})`;
          stopEarly.abort();
        }
      }
      // (a failure to stop it fails the run at the primer's latest event)
      checkPrimer().catch(() => undefined);
      options.onTick?.(Math.min(runLengthS(settings), (Date.now() - runStartMs) / 1000));
    }, 1000);
    if (primerFlow && settings.primer) {
      primerTimes.primerStartS = runStartMs / 1000;
      startBulk(primerFlow, settings.primer.leadS + primerLatestStopS);
      log(
        `primer on port ${primerFlow.port}: ${settings.primer.leadS} s alone, then until ${settings.primer.overlapS} s after ${primerPlaying ? `every player started playing (at the latest +${primerLatestStopS.toFixed(1)} s)` : "the last of the run's flows started"}`,
      );
      await sleepUntil(runStartMs + settings.primer.leadS * 1000, signal);
    }

    // The schedule. Events at offsets from t0; phases recorded as they happen.
    const t0 = Date.now();
    scheduleStartS = t0 / 1000;
    const at = (offsetS: number): number => t0 + offsetS * 1000;
    const video = flows.filter((f) => f.slot === 'video');
    const bulk = flows.filter((f) => f.slot === 'bulk');
    const videoSpanS = schedule.video.toS - schedule.video.fromS;
    const bulkSpanS = schedule.bulk.toS - schedule.bulk.fromS;
    type Event = { atS: number; order: number; run: () => Promise<void> };
    const events: Event[] = [];
    events.push({
      atS: schedule.video.fromS,
      order: 1,
      run: async () => {
        kindTimes.videoStartS = Date.now() / 1000;
        for (const f of video) {
          if (f.role === 'control') startBulk(f, videoSpanS);
          else if (f.player && browser && tb) {
            const preloaded = held.get(f.id);
            if (preloaded) {
              await preloaded.release();
              sessions.push(preloaded);
            } else {
              const session = await PlayerSession.open(browser, sessionOptions(tb, { ...f, player: f.player }));
              sessions.push(session);
              closeOnTeardown(session);
            }
          }
        }
      },
    });
    events.push({
      atS: schedule.bulk.fromS,
      order: 2,
      run: async () => {
        kindTimes.bulkStartS = Date.now() / 1000;
        for (const f of bulk) startBulk(f, bulkSpanS);
      },
    });
    events.push({
      atS: schedule.video.toS,
      order: 0,
      run: async () => {
        kindTimes.videoStopS = Date.now() / 1000;
        await Promise.all([...sessions.map((s) => s.close()), ...video.filter((f) => f.role === 'control').map(stopBulk)]);
      },
    });
    events.push({
      atS: schedule.bulk.toS,
      order: 0,
      run: async () => {
        kindTimes.bulkStopS = Date.now() / 1000;
        await Promise.all(bulk.map(stopBulk));
      },
    });
    // Checked once some connection of the run is established (congestionCheckOffsetsS), after any
    // other event due at the same time (the primer's stop comes first); recorded and warned about
    // once: when a check sees connections, or at the last check. A failing `ss` is a warning.
    const ccChecks = congestionCheckOffsetsS(schedule.both.fromS, settings.warmupS);
    let ccConcluded = false;
    ccChecks.forEach((atS, i) =>
      events.push({
        atS,
        order: 6,
        run: async () => {
          if (!tb || ccConcluded) return;
          let check: CongestionCheck;
          try {
            check = await tb.verifyCongestionControl(flows.map((f) => f.port));
          } catch (err) {
            ccConcluded = true;
            warnings.push(`congestion control not verified: ss failed: ${(err as Error).message}`);
            return;
          }
          if (check.connections === 0 && i < ccChecks.length - 1) return;
          ccConcluded = true;
          congestion = check;
          log(`congestion control: ${check.detail}`);
          if (!check.ok) warnings.push(`congestion control not verified: ${check.detail}`);
        },
      }),
    );
    if (primerFlow && settings.primer && !primerPlaying) {
      events.push({ atS: primerLatestStopS, order: 5, run: () => stopPrimer(null) });
    } else if (primerFlow && settings.primer) {
      // Waiting for playback: at its earliest (players playing by then, or none) and at its latest; the poll timer in between.
      const earliest = primerStopOffsetS(schedule, settings.primer);
      events.push({ atS: earliest, order: 5, run: () => checkPrimer(earliest) });
      events.push({ atS: primerLatestStopS, order: 5, run: () => checkPrimer(primerLatestStopS) });
    }
    if (video.some((f) => f.role === 'player')) {
      // Checked while the players still run (short schedules check earlier).
      const readyAtS = schedule.video.fromS + Math.max(1, Math.min(PLAYER_READY_TIMEOUT_S, videoSpanS - 2));
      events.push({
        atS: readyAtS,
        order: 4,
        run: async () => {
          for (const s of sessions) {
            await s.poll();
            if (!s.last?.ready) {
              const why = s.pageErrors.length > 0 ? `page error: ${s.pageErrors[0]}` : 'window.sprintPlayer never appeared';
              throw new Error(
                `player ${s.options.label} (port ${s.options.port}) did not start within ${(readyAtS - schedule.video.fromS).toFixed(0)} s: ${why} (${s.options.url})`,
              );
            }
          }
        },
      });
    }
    const live = events.filter((e) => e.atS <= schedule.totalS).sort((a, b) => a.atS - b.atS || a.order - b.order);

    let phaseIndex = 0;
    let phaseStart = 0;
    const markPhases = (nowOffsetS: number): void => {
      while (phaseIndex < schedule.phases.length) {
        const p = schedule.phases[phaseIndex] as { name: PhaseName; durationS: number };
        if (phaseStart + p.durationS > nowOffsetS + 1e-6) break;
        phases.push({ name: p.name, fromS: t0 / 1000 + phaseStart, toS: t0 / 1000 + phaseStart + p.durationS });
        phaseStart += p.durationS;
        phaseIndex++;
      }
    };
    for (const e of live) {
      await sleepUntil(at(e.atS), signal);
      markPhases(e.atS);
      await e.run();
    }
    await sleepUntil(at(schedule.totalS), signal);
    markPhases(schedule.totalS);
  } catch (err) {
    if (browserLost || playerBroken) {
      status = 'failed';
      error = browserLost ?? playerBroken;
      log(`run ${spec.dir} failed: ${error}`);
    } else if (err instanceof RunAborted || signal.aborted) {
      status = 'interrupted';
      error = 'interrupted';
    } else {
      status = 'failed';
      error = (err as Error).message;
      log(`run ${spec.dir} failed: ${error}`);
    }
  } finally {
    if (pollTimer) clearInterval(pollTimer);
    options.signal?.removeEventListener('abort', onOuterAbort);
    closingBrowser = true;
    // Players and bulk flows, then the browser, measurement, servers and the testbed: the reverse of set-up.
    await teardown.unwind((what, err) => warnings.push(`stopping ${what}: ${(err as Error).message}`));
  }
  const record: RunRecord = {
    format: RUN_FORMAT,
    version: RUN_VERSION,
    spec,
    settings,
    flows,
    status,
    error,
    testbed: tb
      ? { id: tb.names.id, namespaces: [tb.serverNs, tb.routerNs, tb.clientNs], topology: tb.settings, serverAddr: tb.serverAddr }
      : null,
    times: {
      setupStartS,
      scheduleStartS,
      phases,
      ...kindTimes,
      ...(primerFlow ? primerTimes : {}),
      ...(primerFlow && primerPlaying ? primerPlayingTimes : {}),
      ...(settings.pagePreload ? preloadTimes : {}),
      endS: Date.now() / 1000,
    },
    congestion,
    capture: captureSummary,
    ...(settings.packets ? { packets: packetSummaries } : {}),
    samplers: samplerSummaries,
    bulkExitCodes,
    delay: delayStats,
    browser: browserInfo,
    pageQuery: options.pageQuery ?? '',
    host: {
      loadAvgStart: hostStart.loadAvg,
      loadAvgEnd: os.loadavg(),
      cpus: hostStart.cpus,
      kernel: hostStart.kernel,
      commit: source.commit,
      dirty: source.dirty,
      build,
    },
    content: currentContent(settings.contentSet),
    ...((options.concurrentRuns ?? 1) > 1 ? { concurrentRuns: options.concurrentRuns } : {}),
    warnings,
  };
  writeFileSync(file('run.json'), `${JSON.stringify(record, null, 1)}\n`);
  return record;
}
