// Output streams and error reporting shared by the `sprint` commands. A
// command's `main(argv, io)` writes through `io` so tests can capture it.
// Mistakes in the invocation or its values (UsageError, RangeError from the
// unit parsers and the model) print one line to stderr and give exit code 2;
// anything else is a bug and prints its stack with exit code 1.

import { UsageError } from './args';

/** Where a command writes. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** The process's own stdout and stderr. */
export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr };

/** Exit code for a bad invocation or bad values. */
export const EXIT_USAGE = 2;
/** Exit code for an unexpected failure. */
export const EXIT_FAILURE = 1;

/**
 * Reports `err` from command `command` (e.g. "model") on io.stderr and returns
 * the exit code: 2 without a stack trace for UsageError and RangeError, 1 with
 * the stack for anything else.
 */
export function reportError(command: string, err: unknown, io: CliIo): number {
  if (err instanceof UsageError || err instanceof RangeError) {
    io.stderr.write(`sprint ${command}: ${err.message}\n`);
    io.stderr.write(`Run "sprint ${command} --help" for usage.\n`);
    return EXIT_USAGE;
  }
  const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
  io.stderr.write(`sprint ${command}: unexpected error: ${detail}\n`);
  return EXIT_FAILURE;
}
