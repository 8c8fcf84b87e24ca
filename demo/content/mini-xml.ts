/**
 * A minimal, strict XML reader for DASH manifests (MPDs) in Node, where there is no DOMParser and
 * the project takes no XML dependency. It handles what MPDs use: a prolog, comments, elements,
 * attributes in single or double quotes, text, CDATA and the five predefined entities (plus
 * numeric character references). DOCTYPE and unbalanced or mismatched tags are errors that say
 * where (line:column). Also used by the tests to check the manifests the generator writes.
 */

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  /** Concatenated text content directly inside this element (entities decoded, whitespace kept). */
  text: string;
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Escapes a string for use in an attribute value or text. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** Parses a document and returns its root element. `where` names the source in error messages. */
export function parseXml(source: string, where = 'XML'): XmlElement {
  let pos = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;

  const at = (p: number): string => {
    const before = source.slice(0, p);
    const line = before.split('\n').length;
    return `${where}:${line}:${p - before.lastIndexOf('\n')}`;
  };
  const fail = (what: string, p = pos): never => {
    throw new Error(`${at(p)}: ${what}`);
  };
  const decode = (s: string, p: number): string =>
    s.replace(/&([^;&\s]*);?/g, (m, name: string) => {
      if (!m.endsWith(';')) fail(`'&' not part of an entity`, p);
      if (name in ENTITIES) return ENTITIES[name];
      const num = /^#x([0-9a-fA-F]+)$/.exec(name) ?? /^#([0-9]+)$/.exec(name);
      if (num) return String.fromCodePoint(parseInt(num[1], name[1] === 'x' ? 16 : 10));
      return fail(`unknown entity '&${name};'`, p);
    });
  const readName = (): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(source);
    if (!m) return fail('expected a name');
    pos += m[0].length;
    return m[0];
  };
  const skipSpace = (): void => {
    while (pos < source.length && /\s/.test(source[pos])) pos++;
  };
  const addText = (t: string): void => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
    else if (t.trim() !== '') fail('text outside the root element');
  };

  while (pos < source.length) {
    if (source[pos] !== '<') {
      const end = source.indexOf('<', pos);
      const stop = end < 0 ? source.length : end;
      addText(decode(source.slice(pos, stop), pos));
      pos = stop;
      continue;
    }
    if (source.startsWith('<?', pos)) {
      const end = source.indexOf('?>', pos);
      if (end < 0) fail('unterminated processing instruction');
      pos = end + 2;
    } else if (source.startsWith('<!--', pos)) {
      const end = source.indexOf('-->', pos);
      if (end < 0) fail('unterminated comment');
      pos = end + 3;
    } else if (source.startsWith('<![CDATA[', pos)) {
      const end = source.indexOf(']]>', pos);
      if (end < 0) fail('unterminated CDATA section');
      addText(source.slice(pos + 9, end));
      pos = end + 3;
    } else if (source.startsWith('<!', pos)) {
      fail('DOCTYPE and other declarations are not supported');
    } else if (source.startsWith('</', pos)) {
      const start = pos;
      pos += 2;
      const name = readName();
      skipSpace();
      if (source[pos] !== '>') fail(`expected '>' to close </${name}`);
      pos++;
      const open = stack.pop();
      if (!open) fail(`closing tag </${name}> without an open element`, start);
      else if (open.name !== name) fail(`closing tag </${name}> does not match <${open.name}>`, start);
    } else {
      const start = pos;
      pos++;
      const el: XmlElement = { name: readName(), attrs: {}, children: [], text: '' };
      for (;;) {
        const hadSpace = /\s/.test(source[pos] ?? '');
        skipSpace();
        if (pos >= source.length) fail(`unterminated start tag <${el.name}`, start);
        if (source[pos] === '>' || source.startsWith('/>', pos)) break;
        if (!hadSpace) fail(`expected whitespace before an attribute in <${el.name}>`);
        const attrPos = pos;
        const attr = readName();
        skipSpace();
        if (source[pos] !== '=') fail(`expected '=' after attribute ${attr}`);
        pos++;
        skipSpace();
        const quote = source[pos];
        if (quote !== '"' && quote !== "'") fail(`attribute ${attr} value must be quoted`);
        const end = source.indexOf(quote, pos + 1);
        if (end < 0) fail(`unterminated value of attribute ${attr}`);
        const raw = source.slice(pos + 1, end);
        if (raw.includes('<')) fail(`'<' in the value of attribute ${attr}`, pos);
        if (attr in el.attrs) fail(`duplicate attribute ${attr} in <${el.name}>`, attrPos);
        el.attrs[attr] = decode(raw, pos);
        pos = end + 1;
      }
      if (stack.length > 0) stack[stack.length - 1].children.push(el);
      else if (root) fail('more than one root element', start);
      else root = el;
      if (source[pos] === '>') {
        stack.push(el);
        pos++;
      } else {
        pos += 2;
      }
    }
  }
  if (stack.length > 0) fail(`element <${stack[stack.length - 1].name}> is not closed`);
  if (!root) fail('no root element');
  return root as XmlElement;
}

/** Direct children with the given name. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** All descendants (depth first, document order) with the given name. */
export function descendantsNamed(el: XmlElement, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (e: XmlElement): void => {
    for (const c of e.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(el);
  return out;
}
