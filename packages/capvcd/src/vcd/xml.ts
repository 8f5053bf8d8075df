/**
 * Reading and writing VCD's legacy XML. Reading strips namespace prefixes (VCD mixes the vcloud,
 * ovf, vmw and rasd namespaces; names do not collide in what we read) and keeps attributes as
 * plain keys. Writing is done with small templates so that namespaces and element order are
 * exactly as VCD documents them; every value goes through {@link esc}.
 */
import { XMLParser } from 'fast-xml-parser';

/** Namespaces of the bodies we send. */
export const NS = {
  vcloud: 'http://www.vmware.com/vcloud/v1.5',
  ovf: 'http://schemas.dmtf.org/ovf/envelope/1',
  vmw: 'http://www.vmware.com/schema/ovf',
  rasd: 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData',
} as const;

/** Elements that may repeat: always read as arrays. */
const LISTS = new Set([
  'Vm',
  'Link',
  'NetworkConnection',
  'ExtraConfig',
  'Task',
  'Item',
  'VersionInfo',
  'NetworkConfig',
  'ResourceEntity',
  'Network',
  'VdcStorageProfile',
  'OrgVdcRecord',
  'CatalogRecord',
  'VAppTemplateRecord',
  'VAppRecord',
  'OrgVdcNetworkRecord',
  'DiskSettings',
  'VmAffinityRule',
  'VmReference',
]);

const OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  isArray: (name: string) => LISTS.has(name),
};
const parser = new XMLParser(OPTIONS);

/** A parsed element: attributes and children as keys, text as `#text` (or the value itself). */
export type XmlNode = Record<string, unknown>;

/** Parses a VCD XML document into plain objects. */
export const parseXml = (text: string): XmlNode => parser.parse(text) as XmlNode;

const keepingParsers = new Map<string, XMLParser>();

/**
 * Like {@link parseXml}, but the inside of every element at one of `paths` (stop-node paths such
 * as `*.Vm.VirtualHardwareSection`) is left unparsed, as text under `#text` beside its attributes:
 * for documents whose bulky parts are seldom all read. {@link parseKept} reads one when it is.
 */
export function parseXmlKeeping(text: string, paths: readonly string[]): XmlNode {
  const key = paths.join('\n');
  let keeping = keepingParsers.get(key);
  if (!keeping) {
    keeping = new XMLParser({ ...OPTIONS, stopNodes: [...paths] });
    keepingParsers.set(key, keeping);
  }
  return keeping.parse(text) as XmlNode;
}

/** An element `name` that {@link parseXmlKeeping} left unparsed, read now as {@link parseXml} reads it. */
export function parseKept(node: unknown, name: string): XmlNode | undefined {
  if (node === undefined || node === null) return undefined;
  // Without attributes the parser gives the element's raw inside as a plain string.
  const { '#text': inner, ...attributes } = typeof node === 'object' ? (node as XmlNode) : { '#text': node };
  const parsed =
    typeof inner === 'string' && inner ? childOf(parseXml(`<${name}>${inner}</${name}>`), name) : undefined;
  return { ...attributes, ...(typeof parsed === 'object' ? parsed : {}) };
}

/** Escapes text for an XML attribute or element. */
export function esc(value: string | number | boolean): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;');
}

/** The text of an element read with {@link parseXml} (`<A>x</A>` or `<A attr="">x</A>`). */
export function textOf(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return String(node);
  const text = (node as XmlNode)['#text'];
  return text === undefined ? undefined : String(text);
}

/** The child list (an array, maybe empty) of `node[key]`. */
export const listOf = (node: unknown, key: string): XmlNode[] =>
  ((node as XmlNode | undefined)?.[key] as XmlNode[] | undefined) ?? [];

/** The first child element of `node[key]`, whether it was read as a list or not. */
export function childOf(node: unknown, key: string): XmlNode | undefined {
  const value = (node as XmlNode | undefined)?.[key];
  if (Array.isArray(value)) return value[0] as XmlNode | undefined;
  return value as XmlNode | undefined;
}

/** The href of the first `Link` with this `rel` (and type suffix, when given). */
export function linkOf(node: unknown, rel: string, typeSuffix?: string): string | undefined {
  return listOf(node, 'Link').find(
    (l) => l.rel === rel && (!typeSuffix || String(l.type ?? '').endsWith(typeSuffix)),
  )?.href as string | undefined;
}
