// The testbed layer's public API in one import, for the A/B evaluation
// harness: the emulated bottleneck (topology), processes inside it
// (origins, flow clients), wire and server-side measurement, and the paper
// §V-A metrics. Everything below the players.

export { assertPreflight, preflight } from './preflight';
export type { PreflightOptions, PreflightReport } from './preflight';
export { createTestbed, resolveTopology, CONGESTION_CONTROLS } from './topology';
export type { CongestionControl, ResolvedTopology, Testbed, TopologyOptions } from './topology';
export type { CongestionCheck } from './congestion';
export { buildDelayElement } from './delay-element';
export type { DelayElement, DelayStats } from './delay-element';
export { ADDRESSES } from './names';
export type { ExecOptions } from './processes';
export { distScript, startOriginProcess } from './origin-process';
export type { OriginCommand, OriginProcess, StartOriginProcessOptions } from './origin-process';
export { WireCapture } from './capture';
export type { WireCaptureOptions, WireCaptureSummary } from './capture';
export { startSsSampler } from './ss-sampler';
export { startQdiscSampler } from './qdisc-sampler';
export type { PeriodicSampler, SamplerSummary } from './sampler';
export { readClientSeries, readWireSeries, seriesFromWireRecords } from './wire-series';
export * from './metrics';
export { summarizeQdisc, summarizeSs } from './sample-summary';
export { measureConnectMs, runBulkVsSequential } from './bulk-vs-sequential';
export { removeStaleTestbeds } from './stale';
export { parseRate, parseSize } from './units';
