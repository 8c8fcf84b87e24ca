// Reads a request's Accept-Encoding field (RFC 9110 §12.5.3) for one
// question: may the origin answer with the gzip-compressed copy of a file?
// The origin keeps such copies only for the page's own files (the player
// bundle); media is never compressed (routes.ts).

/** One coding of an Accept-Encoding list with its weight, e.g. "gzip;q=0.5". */
interface Coding {
  readonly name: string;
  readonly q: number;
}

/** The codings of an Accept-Encoding value; null when a member cannot be read (then nothing is assumed). */
function codings(value: string): Coding[] | null {
  const out: Coding[] = [];
  for (const member of value.split(',')) {
    const [rawName, ...params] = member.split(';');
    const name = (rawName ?? '').trim().toLowerCase();
    if (name === '') continue; // empty list members are allowed
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) return null;
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=(.*)$/i.exec(param);
      if (!m) continue; // other parameters carry no weight
      const weight = (m[1] as string).trim();
      if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(weight)) return null;
      q = Number(weight);
    }
    out.push({ name, q });
  }
  return out;
}

/**
 * Whether a response may be gzip-encoded for a request with this
 * Accept-Encoding value (undefined: the field is absent, which allows only
 * the identity encoding here, as most servers do). "gzip" and its alias
 * "x-gzip" count; "*" counts when gzip is not named; q=0 refuses.
 */
export function acceptsGzip(value: string | undefined): boolean {
  if (value === undefined) return false;
  const list = codings(value);
  if (list === null) return false;
  const named = list.filter((c) => c.name === 'gzip' || c.name === 'x-gzip');
  if (named.length > 0) return named.some((c) => c.q > 0);
  return list.some((c) => c.name === '*' && c.q > 0);
}
