/**
 * Reading request bodies. VCD validates request XML against its schema and answers 400 for
 * anything that does not fit; this parser does the same for the elements the simulator reads:
 * malformed XML, unbound namespace prefixes, elements in the wrong namespace, unknown elements or
 * attributes are all refused.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { errors } from '../server/errors.js';
import { NS } from './ns.js';
import { resolveElement, type XNode } from './resolve.js';

const EMPTY_SCOPE: ReadonlyMap<string, string> = new Map();

export type { XNode } from './resolve.js';

/**
 * What an element may contain. `ns` is the element's namespace (default: VCD's vcloud namespace);
 * attributes are named unqualified (`href`) or with the schema's prefix (`vmw:key`, `ovf:required`),
 * whatever prefix the request binds to that namespace. `open` skips checking its content (for
 * content the simulator does not read; its prefixes must still be bound).
 */
export interface Spec {
  ns?: string;
  attrs?: string[];
  children?: Record<string, Spec>;
  open?: boolean;
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  removeNSPrefix: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
});

type Raw = Record<string, unknown>;

const invalid = (detail: string) => errors.badRequest(`The document is not valid. ${detail}`);

/** Attributes any element may carry: its media type, OVF's `required`, VCD's href/type on OVF sections. */
const ANYWHERE = new Set(['type', 'ovf:required', 'vcloud:type', 'vcloud:href']);

/** `{uri}local`, how VCD's validator names an element in its messages. */
const expanded = (ns: string, local: string) => (ns ? `{"${ns}":${local}}` : local);

function check(node: XNode, spec: Spec): void {
  const want = spec.ns ?? NS.vcloud;
  if (node.ns !== want)
    throw invalid(
      `cvc-complex-type.2.4.a: Invalid content was found starting with element '${expanded(node.ns, node.name)}'. One of '${expanded(want, node.name)}' is expected.`,
    );
  if (spec.open) return;
  for (const a of node.qualifiedAttrs) {
    if (ANYWHERE.has(a) || a.startsWith('xsi:')) continue;
    if (!spec.attrs?.includes(a))
      throw invalid(
        `cvc-complex-type.3.2.2: Attribute '${a}' is not allowed to appear in element '${node.name}'.`,
      );
  }
  for (const c of node.children) {
    const sub = spec.children?.[c.name];
    if (!sub)
      throw invalid(`cvc-complex-type.2.4.a: Invalid content was found starting with element '${c.name}'.`);
    check(c, sub);
  }
}

/** Parses and checks a request body whose root must be `root` and fit `spec`. */
export function parseBody(body: Buffer, root: string, spec: Spec): XNode {
  const textBody = body.toString('utf8');
  if (textBody.trim() === '') throw errors.badRequest('The request has no body.');
  // Like VCD, no document type declarations (and so no entity expansion) in request bodies.
  if (/<!DOCTYPE/i.test(textBody)) throw errors.badRequest('DOCTYPE is not allowed in request bodies.');
  const valid = XMLValidator.validate(textBody);
  if (valid !== true)
    throw errors.badRequest(`The XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}).`);
  let rawList: Raw[];
  try {
    rawList = parser.parse(textBody) as Raw[];
  } catch (e) {
    throw errors.badRequest(`The XML is not well-formed: ${(e as Error).message}`);
  }
  const top = rawList.map((r) => resolveElement(r, EMPTY_SCOPE)).filter((n): n is XNode => !!n);
  const node = top[0];
  if (!node || top.length !== 1) throw errors.badRequest('The document must have exactly one root element.');
  const ns = spec.ns ?? NS.vcloud;
  if (node.name !== root || node.ns !== ns)
    throw invalid(
      `cvc-elt.1.a: Cannot find the declaration of element '${expanded(node.ns, node.name)}'; expected '${expanded(ns, root)}'.`,
    );
  check(node, spec);
  return node;
}

/** The first child with that name. */
export const child = (n: XNode | undefined, name: string): XNode | undefined =>
  n?.children.find((c) => c.name === name);

/** All children with that name. */
export const childrenNamed = (n: XNode | undefined, name: string): XNode[] =>
  n?.children.filter((c) => c.name === name) ?? [];

/** The text of the first child with that name (trimmed). */
export const childText = (n: XNode | undefined, name: string): string | undefined =>
  child(n, name)?.text.trim();

/** A boolean child (`true`/`false`); anything else is VCD's 400. */
export function childBool(n: XNode | undefined, name: string): boolean | undefined {
  const t = childText(n, name);
  if (t === undefined) return undefined;
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw invalid(`cvc-datatype-valid.1.2.1: '${t}' is not a valid value for 'boolean' in element '${name}'.`);
}

/** A non-negative integer child; negative, fractional or non-numeric values are VCD's 400. */
export function childInt(n: XNode | undefined, name: string): number | undefined {
  const t = childText(n, name);
  if (t === undefined) return undefined;
  if (!/^\d+$/.test(t)) throw invalid(`'${t}' is not a valid non-negative integer in element '${name}'.`);
  return Number(t);
}

/** A boolean attribute (`true`/`false`) with a default. */
export function attrBool(n: XNode, name: string, dflt: boolean): boolean {
  const v = n.attrs[name];
  if (v === undefined) return dflt;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw invalid(
    `cvc-datatype-valid.1.2.1: '${v}' is not a valid value for 'boolean' in attribute '${name}'.`,
  );
}
