/**
 * Namespace resolution of a parsed request body, as a namespace-aware XML parser does it: every
 * element and attribute prefix must be declared in scope (`xmlns:p` on the element or an
 * ancestor; `xml:` is predeclared), an unprefixed element takes the default namespace and an
 * unprefixed attribute has none. An unbound prefix is VCD's 400, worded as its parser words it.
 */
import { errors } from '../server/errors.js';
import { NS } from './ns.js';

/** An element by namespace URI and local name, attributes by local name, children in order. */
export interface XNode {
  /** Local name (no prefix). */
  name: string;
  /** Namespace URI ('' for none). */
  ns: string;
  /** Attribute values by local name (namespace declarations left out). */
  attrs: Record<string, string>;
  /** Each attribute's name as `canonicalPrefix:local` (or just `local` when unqualified). */
  qualifiedAttrs: string[];
  children: XNode[];
  text: string;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** The prefix the simulator's schemas use for a namespace URI (`{uri}` for one it does not know). */
const CANONICAL = new Map<string, string>([
  ...Object.entries(NS).map(([prefix, uri]) => [uri, prefix] as [string, string]),
  [XML_NS, 'xml'],
]);

/** `canonicalPrefix:local` for a namespace-qualified name, `local` when it has no namespace. */
export const canonicalName = (ns: string, local: string): string =>
  ns === '' ? local : `${CANONICAL.get(ns) ?? `{${ns}}`}:${local}`;

type Raw = Record<string, unknown>;
type Scope = ReadonlyMap<string, string>;

const unbound = (detail: string) => errors.badRequest(`The XML is not namespace-well-formed: ${detail}`);

function split(qname: string): [prefix: string, local: string] {
  const i = qname.indexOf(':');
  return i < 0 ? ['', qname] : [qname.slice(0, i), qname.slice(i + 1)];
}

/** The scope an element opens: its own `xmlns` / `xmlns:p` declarations over its parent's. */
function scopeOf(parent: Scope, attrs: Record<string, unknown>): Scope {
  let scope: Map<string, string> | undefined;
  for (const [name, value] of Object.entries(attrs)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    scope ??= new Map(parent);
    const prefix = name === 'xmlns' ? '' : name.slice(6);
    if (prefix !== '' && value === '')
      throw unbound(`the prefix "${prefix}" cannot be undeclared (xmlns:${prefix}="").`);
    scope.set(prefix, String(value));
  }
  return scope ?? parent;
}

/** Converts one element of fast-xml-parser's ordered output, resolving its namespaces. */
export function resolveElement(raw: Raw, parent: Scope): XNode | undefined {
  const qname = Object.keys(raw).find((k) => k !== ':@');
  if (!qname || qname === '#text' || qname.startsWith('?') || qname.startsWith('!')) return undefined;
  const rawAttrs = (raw[':@'] as Record<string, unknown> | undefined) ?? {};
  const scope = scopeOf(parent, rawAttrs);
  const [prefix, name] = split(qname);
  const ns = prefix === '' ? (scope.get('') ?? '') : prefix === 'xml' ? XML_NS : scope.get(prefix);
  if (ns === undefined || (prefix !== '' && ns === ''))
    throw unbound(`The prefix "${prefix}" for element "${qname}" is not bound.`);
  const attrs: Record<string, string> = {};
  const qualifiedAttrs: string[] = [];
  for (const [attr, value] of Object.entries(rawAttrs)) {
    if (attr === 'xmlns' || attr.startsWith('xmlns:')) continue;
    const [p, local] = split(attr);
    const attrNs = p === '' ? '' : p === 'xml' ? XML_NS : scope.get(p);
    if (attrNs === undefined || (p !== '' && attrNs === ''))
      throw unbound(
        `The prefix "${p}" for attribute "${attr}" associated with an element type "${qname}" is not bound.`,
      );
    attrs[local] = String(value);
    qualifiedAttrs.push(canonicalName(attrNs, local));
  }
  const children: XNode[] = [];
  let text = '';
  for (const k of (raw[qname] as Raw[] | undefined) ?? []) {
    if ('#text' in k) text += String(k['#text']);
    else {
      const c = resolveElement(k, scope);
      if (c) children.push(c);
    }
  }
  return { name, ns, attrs, qualifiedAttrs, children, text };
}
