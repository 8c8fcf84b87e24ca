/**
 * Tests for the minimal XML reader used on DASH manifests (demo/content/mini-xml.ts): the shapes
 * MPDs use parse into the right tree, and malformed documents fail with line:column.
 */
import { childrenNamed, descendantsNamed, escapeXml, parseXml } from '../../../demo/content/mini-xml';

describe('parseXml', () => {
  it('parses prolog, comments, attributes, self-closing elements, text and entities', () => {
    const root = parseXml(`<?xml version="1.0"?>
<!-- a comment -->
<MPD type="static" note='a &amp; b &lt;c&gt; &#65;&#x42;'>
  <Period id="0">
    <AdaptationSet contentType="video"><Representation id="1" bandwidth="300000"/></AdaptationSet>
    <BaseURL>rep-0.mp4</BaseURL>
    <X><![CDATA[<raw>]]></X>
  </Period>
</MPD>
`);
    expect(root.name).toBe('MPD');
    expect(root.attrs).toEqual({ type: 'static', note: 'a & b <c> AB' });
    const period = childrenNamed(root, 'Period')[0];
    expect(period.attrs.id).toBe('0');
    expect(descendantsNamed(root, 'Representation').map((r) => r.attrs)).toEqual([{ id: '1', bandwidth: '300000' }]);
    expect(childrenNamed(period, 'BaseURL')[0].text).toBe('rep-0.mp4');
    expect(childrenNamed(period, 'X')[0].text).toBe('<raw>');
  });

  it('round-trips escaped attribute values', () => {
    const v = `a"b'c<d>&e`;
    expect(parseXml(`<a v="${escapeXml(v)}"/>`).attrs.v).toBe(v);
  });

  it.each([
    ['<a><b></a>', /m\.mpd:1:7: closing tag <\/a> does not match <b>/],
    ['<a>\n  <b>\n</a>', /m\.mpd:3:1: closing tag <\/a> does not match <b>/],
    ['<a>', /element <a> is not closed/],
    ['<a x="1" x="2"/>', /duplicate attribute x/],
    ['<a x=1/>', /attribute x value must be quoted/],
    ['<!DOCTYPE a><a/>', /DOCTYPE/],
    ['<a/><b/>', /more than one root element/],
    ['hello <a/>', /text outside the root element/],
    ['<a>&bogus;</a>', /unknown entity '&bogus;'/],
    ['', /no root element/],
  ])('rejects %j', (src, message) => {
    expect(() => parseXml(src, 'm.mpd')).toThrow(message);
  });
});
