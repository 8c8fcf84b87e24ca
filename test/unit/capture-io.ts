// A command's output streams for unit tests of the CLIs: `main(argv, io)`
// writes through `io`, and the test reads what went to stdout and stderr.

import type { CliIo } from '../../src/cli/io';

export interface CapturedIo {
  io: CliIo;
  out(): string;
  err(): string;
}

export function captureIo(): CapturedIo {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (t: string) => void (out += t) }, stderr: { write: (t: string) => void (err += t) } },
    out: () => out,
    err: () => err,
  };
}
