// A tiny command-line argument parser shared by the `sprint` commands (no
// dependency). Accepts `--key value`, `--key=value`, boolean flags (`--help`),
// one-letter aliases (`-h`), positionals if the command allows them, and `--`
// to end the options. Anything else is a UsageError that says what and where:
// unknown options, a missing value, a value given to a flag, an option given
// twice.

/** A mistake in how a command was invoked; commands report it and exit with code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface OptionSpec {
  /** 'value' takes an argument (`--rtt 200ms`); 'flag' does not (`--help`). */
  readonly kind: 'value' | 'flag';
  /** Optional one-letter alias, without the dash (e.g. 'h' for -h). */
  readonly short?: string;
}

/** Options a command accepts, keyed by long name without the leading "--". */
export type OptionsSpec = Readonly<Record<string, OptionSpec>>;

export interface ParseArgsOptions {
  /** Accept arguments that are not options (default false: they are errors). */
  readonly allowPositionals?: boolean;
}

export interface ParsedArgs {
  /** Values of 'value' options that were given, by long name. */
  readonly values: ReadonlyMap<string, string>;
  /** Names of 'flag' options that were given. */
  readonly flags: ReadonlySet<string>;
  /** Arguments that are not options, in order. */
  readonly positionals: readonly string[];
}

/** Parses `argv` (the arguments after the command name) against `spec`. */
export function parseArgs(argv: readonly string[], spec: OptionsSpec, options: ParseArgsOptions = {}): ParsedArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  const byShort = new Map<string, string>();
  for (const [long, s] of Object.entries(spec)) {
    if (s.short !== undefined) byShort.set(s.short, long);
  }

  const positional = (arg: string): void => {
    if (options.allowPositionals !== true) {
      throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    }
    positionals.push(arg);
  };

  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      argv.slice(i + 1).forEach(positional);
      break;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg)) {
      const long = byShort.get(arg.slice(1));
      if (long === undefined) throw new UsageError(`unknown option ${arg}`);
      name = long;
    } else {
      positional(arg);
      continue;
    }
    const s = Object.prototype.hasOwnProperty.call(spec, name) ? spec[name] : undefined;
    if (s === undefined || name === '') {
      throw new UsageError(`unknown option --${name}`);
    }
    if (values.has(name) || flags.has(name)) {
      throw new UsageError(`option --${name} given more than once`);
    }
    if (s.kind === 'flag') {
      if (inline !== undefined) throw new UsageError(`option --${name} takes no value`);
      flags.add(name);
      continue;
    }
    if (inline !== undefined) {
      values.set(name, inline);
      continue;
    }
    // The value is the next argument, unless there is none or it is another
    // long option. A single dash is allowed so "-5ms" reaches the unit parser
    // and is reported as negative rather than as a missing value.
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) {
      throw new UsageError(`option --${name} needs a value`);
    }
    values.set(name, next);
    i += 1;
  }
  return { values, flags, positionals };
}

/** Parses a plain decimal number (no unit) given to option `name`, e.g. "--epsilon". */
export function parseNumber(text: string, name: string): number {
  const trimmed = text.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) {
    throw new UsageError(`${name}: ${JSON.stringify(text)} is not a number`);
  }
  const value = Number(trimmed);
  if (!Number.isFinite(value)) throw new UsageError(`${name}: ${JSON.stringify(text)} is too large`);
  return value;
}

/** Parses a whole number >= min given to option `name`, e.g. "--initial-window". */
export function parseInteger(text: string, name: string, min = 1): number {
  const value = parseNumber(text, name);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${name}: ${JSON.stringify(text)} must be a whole number >= ${min}`);
  }
  return value;
}
