// `sprint model`: evaluates the chunk-size model (paper §IV-A, Program 1 and
// Eq. 1) and the outstanding window (§IV-B1) for given network estimates and
// prints the result as JSON on stdout.
//
//   sprint model --bandwidth 1.5mbit --rtt 200ms [--epsilon 0.1] [--mss 1460]
//                [--initial-window 10] [--segment-bytes 750kb] [--window-bdps 2]

import { chunkSize, DEFAULT_EPSILON, DEFAULT_INITIAL_WINDOW_SEGMENTS, DEFAULT_MSS_BYTES, transferEfficiency } from '../model/chunk-size';
import {
  DEFAULT_MAX_OUTSTANDING_REQUESTS,
  DEFAULT_WINDOW_BDPS,
  isWindowBdps,
  MAX_WINDOW_BDPS,
  outstandingRequests,
  windowBytes,
} from '../model/outstanding-window';
import { parseBitsPerSecond, parseBytes, parseSeconds } from '../units';
import { OptionsSpec, parseArgs, parseInteger, parseNumber, UsageError } from './args';
import { CliIo, processIo, reportError } from './io';

/**
 * Segment duration assumed when --segment-bytes is not given: the paper's
 * (and our demo content's) 4-second segments, at a bitrate equal to the
 * bandwidth estimate.
 */
export const DEFAULT_SEGMENT_SECONDS = 4;

const SPEC: OptionsSpec = {
  bandwidth: { kind: 'value' },
  rtt: { kind: 'value' },
  epsilon: { kind: 'value' },
  mss: { kind: 'value' },
  'initial-window': { kind: 'value' },
  'segment-bytes': { kind: 'value' },
  'window-bdps': { kind: 'value' },
  help: { kind: 'flag', short: 'h' },
};

export const USAGE = `Usage: sprint model --bandwidth RATE --rtt DURATION [options]

Computes the Sprint chunk size (paper §IV-A, Program 1), the efficiency Eq. 1
predicts for a transfer of that size, and the outstanding window (§IV-B1).
Prints JSON: sizes in bytes, rates in bits per second, times in seconds.

Required:
  --bandwidth RATE        fair-share bandwidth estimate: 1.5mbit, 300kbit, 2gbit,
                          800bit (decimal; "/s" allowed; "mbps" is rejected as
                          ambiguous)
  --rtt DURATION          round-trip time estimate: 200ms, 0.2s, 1m, 1h

Options:
  --epsilon E             allowed shortfall from fair share, 0 < E < 1 (default ${DEFAULT_EPSILON})
  --mss BYTES             TCP maximum segment size (default ${DEFAULT_MSS_BYTES})
  --initial-window N      TCP initial window in segments (default ${DEFAULT_INITIAL_WINDOW_SEGMENTS})
  --segment-bytes BYTES   typical video segment size for the outstanding window:
                          1460, 750kb (kb = 1024 bytes). Default: one
                          ${DEFAULT_SEGMENT_SECONDS}-second segment at the bandwidth estimate
  --window-bdps N         fair BDPs the outstanding requests cover, 1 to ${MAX_WINDOW_BDPS}
                          (default ${DEFAULT_WINDOW_BDPS}, as the player uses; the paper's minimum is 1).
                          outstandingRequests is how many segments of
                          --segment-bytes cover it, at least 2
  -h, --help              show this help
`;

/** Runs `sprint model` with the arguments after the command name; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    const args = parseArgs(argv, SPEC);
    if (args.flags.has('help')) {
      io.stdout.write(USAGE);
      return 0;
    }
    const required = (name: string): string => {
      const value = args.values.get(name);
      if (value === undefined) throw new UsageError(`--${name} is required`);
      return value;
    };
    const optional = <T>(name: string, parse: (text: string) => T, fallback: T): T => {
      const value = args.values.get(name);
      return value === undefined ? fallback : parse(value);
    };

    const bandwidthBitsPerSec = parseBitsPerSecond(required('bandwidth'), { name: '--bandwidth' });
    const rttSec = parseSeconds(required('rtt'), { name: '--rtt' });
    const epsilon = optional('epsilon', (t) => parseNumber(t, '--epsilon'), DEFAULT_EPSILON);
    if (!(epsilon > 0 && epsilon < 1)) {
      throw new UsageError(`--epsilon: ${epsilon} must be strictly between 0 and 1`);
    }
    const mssBytes = optional('mss', (t) => parseBytes(t, { name: '--mss' }), DEFAULT_MSS_BYTES);
    const initialWindowSegments = optional('initial-window', (t) => parseInteger(t, '--initial-window'), DEFAULT_INITIAL_WINDOW_SEGMENTS);
    const givenSegmentBytes = optional<number | undefined>('segment-bytes', (t) => parseBytes(t, { name: '--segment-bytes' }), undefined);
    const segmentBytes = givenSegmentBytes ?? Math.ceil((bandwidthBitsPerSec * DEFAULT_SEGMENT_SECONDS) / 8);
    const windowBdps = optional('window-bdps', (t) => parseNumber(t, '--window-bdps'), DEFAULT_WINDOW_BDPS);
    if (!isWindowBdps(windowBdps)) {
      throw new UsageError(`--window-bdps: ${windowBdps} must be a number of fair BDPs in [1, ${MAX_WINDOW_BDPS}]`);
    }

    const params = { bandwidthBitsPerSec, rttSec, epsilon, mssBytes, initialWindowSegments };
    const chunk = chunkSize(params);
    const prediction = transferEfficiency(chunk.chunkBytes, params);
    const window = windowBytes(chunk.fairBdpBytes, windowBdps);
    const result = {
      inputs: {
        bandwidthBitsPerSec,
        rttSec,
        epsilon,
        mssBytes,
        initialWindowSegments,
        segmentBytes,
        segmentBytesSource:
          givenSegmentBytes === undefined
            ? `default: one ${DEFAULT_SEGMENT_SECONDS} s segment at the bandwidth estimate`
            : '--segment-bytes',
      },
      fairBdpBytes: chunk.fairBdpBytes,
      slowStartThresholdBytes: chunk.slowStartThresholdBytes,
      slowStartRounds: chunk.slowStartRounds,
      additiveIncreaseRounds: chunk.additiveIncreaseRounds,
      chunkBytes: chunk.chunkBytes,
      windowBdps,
      windowBytes: window,
      outstandingRequests: outstandingRequests(window, segmentBytes),
      maxOutstandingRequests: DEFAULT_MAX_OUTSTANDING_REQUESTS,
      chunkPrediction: {
        rounds: prediction.rounds,
        efficiency: prediction.efficiency,
        predictedThroughputBitsPerSec: prediction.predictedThroughputBitsPerSec,
        predictedSeconds: prediction.predictedSeconds,
      },
    };
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    return reportError('model', err, io);
  }
}
