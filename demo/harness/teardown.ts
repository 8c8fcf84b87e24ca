// What a run must undo, in the reverse order of set-up: each step that starts
// something pushes how to stop it, and `unwind` runs them newest first. A
// teardown that fails is reported and the rest still run, so one stuck piece
// never leaves the others (namespaces, processes, files) behind.

export class TeardownStack {
  private readonly steps: Array<{ what: string; run: () => unknown }> = [];

  /** Registers how to undo what was just set up. */
  push(what: string, run: () => unknown): void {
    this.steps.push({ what, run });
  }

  get size(): number {
    return this.steps.length;
  }

  /** Runs every teardown, newest first, each once; `onError` hears each failure. */
  async unwind(onError: (what: string, error: unknown) => void): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop() as { what: string; run: () => unknown };
      try {
        await step.run();
      } catch (e) {
        onError(step.what, e);
      }
    }
  }
}
