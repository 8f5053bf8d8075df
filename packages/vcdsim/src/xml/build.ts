/**
 * A tiny XML writer. Element order matters to VCD (its parser validates against the XSD sequence),
 * so documents are written as explicit ordered trees rather than from object key order.
 */

/** A child of an element: rendered XML, or nothing (skipped). */
export type Child = string | undefined | null | false;

const ESC: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\n': '&#10;',
  '\r': '&#13;',
};
const TEXT_SPECIAL = /[&<>"'\r]/g;
const ATTR_SPECIAL = /[&<>"'\n\r]/g;

/** Escapes text or an attribute value. Newlines in attributes become `&#10;` so they survive parsing. */
export function escapeXml(s: string, attribute = false): string {
  const re = attribute ? ATTR_SPECIAL : TEXT_SPECIAL;
  re.lastIndex = 0;
  return re.test(s) ? s.replace(re, (c) => ESC[c] ?? c) : s;
}

/** Attribute values; `undefined` ones are left out, the rest are written in the given order. */
export type Attrs = Record<string, string | number | boolean | undefined>;

function attrs(a: Attrs | undefined): string {
  if (!a) return '';
  let s = '';
  for (const k in a) {
    const v = a[k];
    if (v !== undefined) s += ` ${k}="${escapeXml(String(v), true)}"`;
  }
  return s;
}

/** An element with attributes and ordered children. */
export function el(name: string, a?: Attrs, ...children: Child[]): string {
  let body = '';
  for (const c of children) if (typeof c === 'string') body += c;
  return body ? `<${name}${attrs(a)}>${body}</${name}>` : `<${name}${attrs(a)}/>`;
}

/** An element holding text; `undefined` text leaves the element out entirely. */
export function text(
  name: string,
  value: string | number | boolean | undefined,
  a?: Attrs,
): string | undefined {
  if (value === undefined) return undefined;
  return `<${name}${attrs(a)}>${escapeXml(String(value))}</${name}>`;
}

/** A whole document: declaration plus root. */
export function doc(root: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}`;
}
