// TCP connect round-trip times, measured from inside the client namespace:
// opens `--count` connections to host:port one after another and times each
// handshake (SYN → SYN-ACK, as seen by connect()). On an idle path this is the
// propagation RTT the delay element adds (plus ~0.1 ms of forwarding); under
// load it includes the bottleneck's queueing delay. Prints one JSON line:
// {"host":..,"port":..,"samplesMs":[..]}.
//
// Usage: node dist/demo/testbed/connect-rtt.js --host 10.201.1.2 --port 8001 [--count 10]

import * as net from 'net';
import { numberOption, parseOptions, required, UsageError } from './cli-args';
import { runMain } from '../../src/cli/run-main';

/** Times one TCP connect, milliseconds. */
export function connectOnce(host: string, port: number, timeoutMs = 5000): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`connect to ${host}:${port} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      clearTimeout(timer);
      socket.destroy();
      resolve(ms);
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`connect to ${host}:${port}: ${err.message}`));
    });
  });
}

export async function main(argv: string[]): Promise<number> {
  try {
    const v = parseOptions(argv, ['host', 'port', 'count']);
    const host = required(v, 'host');
    const port = numberOption(v, 'port');
    const count = Math.min(1000, Math.round(numberOption(v, 'count', 10)));
    const samplesMs: number[] = [];
    for (let i = 0; i < count; i++) samplesMs.push(await connectOnce(host, port));
    process.stdout.write(`${JSON.stringify({ host, port, samplesMs })}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`connect-rtt: ${err.message}\nusage: connect-rtt --host H --port P [--count N]\n`);
      return 2;
    }
    process.stderr.write(`connect-rtt: ${(err as Error).message}\n`);
    return 1;
  }
}

runMain(module, 'connect-rtt', main, { exit: 'now' });
