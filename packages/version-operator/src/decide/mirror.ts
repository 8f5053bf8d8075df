/**
 * Mirroring a node's protocol keys from one prefix to the other during a migration. Pure.
 *
 * Every role has one writer (see `@capstan/reboot-protocol`), and while a migration runs that
 * writer speaks one of the two protocols: an agent-owned key is authoritative under the protocol
 * of the agent running on that node, a coordinator-owned key under the coordinator's. Mirroring
 * copies each authoritative value to the other prefix, so whichever protocol a reader speaks, it
 * reads what the writer last wrote: no request or grant is lost (the copy holds it), none is
 * doubled (a grant exists on both sides or on neither), and nothing new is asked or granted (only
 * values that exist are copied). The admin's pause is the union of both sides.
 */
import { type Protocol, type ProtocolName, protocolOf, readFlag, TRUE } from '@capstan/reboot-protocol';

/** A node's annotations and labels (the part mirroring reads). */
export interface NodeKeys {
  annotations: Readonly<Record<string, string>>;
  labels: Readonly<Record<string, string>>;
}

/** Who writes a role. */
type Writer = 'agent' | 'coordinator' | 'admin';

type AnnotationRole = keyof Protocol['annotations'];
type LabelRole = keyof Protocol['labels'];

const ANNOTATION_WRITERS: Record<AnnotationRole, Writer> = {
  rebootNeeded: 'agent',
  rebootInProgress: 'agent',
  status: 'agent',
  newVersion: 'agent',
  lastCheckedTime: 'agent',
  agentMadeUnschedulable: 'agent',
  rebootOk: 'coordinator',
  rebootPaused: 'admin',
};

const LABEL_WRITERS: Record<LabelRole, Writer> = {
  rebootNeeded: 'agent',
  id: 'agent',
  version: 'agent',
  group: 'agent',
  beforeReboot: 'coordinator',
  afterReboot: 'coordinator',
};

/** Roles whose values are protocol booleans: compared by meaning, spelt as each side spells them. */
const BOOLEAN_ANNOTATIONS = new Set<AnnotationRole>([
  'rebootNeeded',
  'rebootInProgress',
  'agentMadeUnschedulable',
  'rebootOk',
  'rebootPaused',
]);

/** A merge patch of a node's metadata: a value to set, `null` to remove. */
export interface NodeKeysPatch {
  annotations: Record<string, string | null>;
  labels: Record<string, string | null>;
}

/** Which protocol the writers of one node speak now. */
export interface Speakers {
  /** Undefined while no single agent runs on the node (none, or an old and a new pod at once). */
  agent: ProtocolName | undefined;
  coordinator: ProtocolName;
}

function mirrorBoolean(
  from: Readonly<Record<string, string>>,
  fromKey: string,
  to: Readonly<Record<string, string>>,
  toKey: string,
  toProtocol: Protocol,
  patch: Record<string, string | null>,
  union: boolean,
): void {
  const source = readFlag(from, fromKey).value || (union && readFlag(to, toKey).value);
  const current = readFlag(to, toKey).value;
  if (source && !current) patch[toKey] = TRUE;
  else if (!source && current) patch[toKey] = toProtocol.withdraw === 'false' ? 'false' : null;
}

function mirrorValue(
  from: Readonly<Record<string, string>>,
  fromKey: string,
  to: Readonly<Record<string, string>>,
  toKey: string,
  patch: Record<string, string | null>,
): void {
  const value = from[fromKey];
  if (value !== to[toKey]) patch[toKey] = value ?? null;
}

/**
 * The patch that makes the non-authoritative side of every role of `node` equal to the
 * authoritative side, between the protocols `a` and `b`. Empty when they already agree.
 */
export function mirrorNode(
  node: NodeKeys,
  speakers: Speakers,
  a: ProtocolName,
  b: ProtocolName,
): NodeKeysPatch {
  const patch: NodeKeysPatch = { annotations: {}, labels: {} };
  if (a === b) return patch;
  const side = (writer: Writer): [Protocol, Protocol] | undefined => {
    const speaks = writer === 'admin' ? a : speakers[writer];
    if (speaks === undefined) return undefined;
    const other = speaks === a ? b : a;
    return [protocolOf(speaks), protocolOf(other)];
  };
  for (const role of Object.keys(ANNOTATION_WRITERS) as AnnotationRole[]) {
    const writer = ANNOTATION_WRITERS[role];
    const sides = side(writer);
    if (!sides) continue;
    const [source, target] = sides;
    const from = source.annotations[role];
    const to = target.annotations[role];
    if (BOOLEAN_ANNOTATIONS.has(role)) {
      mirrorBoolean(
        node.annotations,
        from,
        node.annotations,
        to,
        target,
        patch.annotations,
        writer === 'admin',
      );
    } else {
      mirrorValue(node.annotations, from, node.annotations, to, patch.annotations);
    }
  }
  for (const role of Object.keys(LABEL_WRITERS) as LabelRole[]) {
    const sides = side(LABEL_WRITERS[role]);
    if (!sides) continue;
    const [source, target] = sides;
    mirrorValue(node.labels, source.labels[role], node.labels, target.labels[role], patch.labels);
  }
  return patch;
}

/** Whether a patch changes nothing. */
export function isEmptyPatch(patch: NodeKeysPatch): boolean {
  return Object.keys(patch.annotations).length === 0 && Object.keys(patch.labels).length === 0;
}

/** `node` with `patch` applied (what the API server does with the merge patch). */
export function applyPatch(node: NodeKeys, patch: NodeKeysPatch): NodeKeys {
  const apply = (values: Readonly<Record<string, string>>, changes: Record<string, string | null>) => {
    const out: Record<string, string> = { ...values };
    for (const [k, v] of Object.entries(changes)) {
      if (v === null) delete out[k];
      else out[k] = v;
    }
    return out;
  };
  return {
    annotations: apply(node.annotations, patch.annotations),
    labels: apply(node.labels, patch.labels),
  };
}

/** The patch that removes every key of `protocol` from `node` (after a migration away from it). */
export function removeProtocolKeys(node: NodeKeys, protocol: ProtocolName): NodeKeysPatch {
  const p = protocolOf(protocol);
  const patch: NodeKeysPatch = { annotations: {}, labels: {} };
  for (const key of Object.values(p.annotations)) if (key in node.annotations) patch.annotations[key] = null;
  for (const key of Object.values(p.labels)) if (key in node.labels) patch.labels[key] = null;
  return patch;
}
