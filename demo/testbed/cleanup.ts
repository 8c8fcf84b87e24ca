// Last-resort clean-up of live testbeds when the harness dies: on normal exit,
// SIGINT (Ctrl-C), SIGTERM, SIGHUP and uncaught errors, every registered
// clean-up runs synchronously (the event loop may be gone by then).
//
// Signal handling keeps the default outcome: after cleaning up, a signal with
// no other listener is re-raised so the process still dies of it. Uncaught
// errors are observed with 'uncaughtExceptionMonitor', which does not change
// how Node reports them. Handlers are installed while at least one clean-up
// is registered and removed when the last one is unregistered.

type Cleanup = () => void;

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const cleanups = new Set<Cleanup>();
let installed = false;

function runAll(): void {
  for (const fn of [...cleanups]) {
    cleanups.delete(fn);
    try {
      fn();
    } catch (err) {
      // Nothing can be thrown from an exit path; say what failed.
      process.stderr.write(`testbed clean-up failed: ${(err as Error).message}\n`);
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll();
  uninstall();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function onExit(): void {
  runAll();
}

function onUncaught(): void {
  runAll();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  process.on('uncaughtExceptionMonitor', onUncaught);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.removeListener('exit', onExit);
  process.removeListener('uncaughtExceptionMonitor', onUncaught);
  for (const s of SIGNALS) process.removeListener(s, onSignal);
}

/** Registers a synchronous clean-up for every exit path; returns its unregister function. */
export function registerCleanup(fn: Cleanup): () => void {
  cleanups.add(fn);
  install();
  return () => {
    cleanups.delete(fn);
    if (cleanups.size === 0) uninstall();
  };
}

/** Number of clean-ups currently registered (for tests and diagnostics). */
export function registeredCleanupCount(): number {
  return cleanups.size;
}
