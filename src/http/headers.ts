// Response header fields as received, looked up case-insensitively (RFC 9110
// §5.1). Used by the response parser of Sprint's pipelined trains (paper §IV-B1).
// Field order and the names' spelling are kept; values are trimmed of OWS.

export class HeaderList {
  private readonly fields: ReadonlyArray<readonly [string, string]>;
  private readonly byName = new Map<string, string[]>();
  private readonly firstOffset = new Map<string, number>();

  /**
   * `fields`: [name, value] pairs in received order (value already trimmed);
   * `offsets`: the stream offset of each field line, for error messages.
   */
  constructor(fields: ReadonlyArray<readonly [string, string]>, offsets: readonly number[] = []) {
    this.fields = fields;
    fields.forEach(([name, value], i) => {
      const key = name.toLowerCase();
      const list = this.byName.get(key);
      if (list) list.push(value);
      else this.byName.set(key, [value]);
      const at = offsets[i];
      if (at !== undefined && !this.firstOffset.has(key)) this.firstOffset.set(key, at);
    });
  }

  /** Stream offset of the first `name` field line, if known. */
  offsetOf(name: string): number | undefined {
    return this.firstOffset.get(name.toLowerCase());
  }

  /** All values of `name` joined with ", " (RFC 9110 §5.3), or undefined if absent. */
  get(name: string): string | undefined {
    const list = this.byName.get(name.toLowerCase());
    return list === undefined ? undefined : list.join(', ');
  }

  /** Each field line's value for `name`, in order (empty if absent). */
  getAll(name: string): readonly string[] {
    return this.byName.get(name.toLowerCase()) ?? [];
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  /** The comma-separated list elements of every `name` field, trimmed, lower-cased, empty ones dropped. */
  tokens(name: string): string[] {
    const out: string[] = [];
    for (const v of this.getAll(name)) {
      for (const part of v.split(',')) {
        const t = part.trim().toLowerCase();
        if (t !== '') out.push(t);
      }
    }
    return out;
  }

  /** [name, value] pairs as received. */
  entries(): ReadonlyArray<readonly [string, string]> {
    return this.fields;
  }

  get size(): number {
    return this.fields.length;
  }
}
