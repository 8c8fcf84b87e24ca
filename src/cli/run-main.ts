// Runs a command module's `main(argv)` when that module is the program's
// entry point (`node dist/.../cli.js ...`), and does nothing when it is
// imported (by `bin/sprint.js`, another module or a test). One helper for
// every command, so they all exit the same way.
//
// `exit: 'set'` (the default) sets process.exitCode and lets Node end when
// nothing is left to do; `'now'` calls process.exit, for commands that may
// leave handles open on purpose (a browser, a server, sockets to a peer).
// A rejected `main` (a bug: commands report their own errors and return a
// code) prints its stack and exits with 1.

export interface RunMainOptions {
  exit?: 'set' | 'now';
}

export function runMain(mod: NodeModule, name: string, main: (argv: string[]) => Promise<number>, options: RunMainOptions = {}): void {
  if (require.main !== mod) return;
  main(process.argv.slice(2)).then(
    (code) => {
      if (options.exit === 'now') process.exit(code);
      process.exitCode = code;
    },
    (err: unknown) => {
      const e = err as { stack?: string; message?: string };
      process.stderr.write(`${name}: ${e?.stack ?? e?.message ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
