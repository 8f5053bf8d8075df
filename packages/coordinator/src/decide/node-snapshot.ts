/**
 * What the planner knows about a node: plain data, copied from the API object. Nothing else
 * (no memory of earlier plans) goes into a decision, so a restarted coordinator decides alike.
 */

/** Status of a node condition as the API reports it. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** The node conditions the planner reads. A missing `Ready` counts as not ready. */
export interface NodeConditions {
  Ready?: ConditionStatus;
  DiskPressure?: ConditionStatus;
  NetworkUnavailable?: ConditionStatus;
}

/** One node as the planner sees it. */
export interface NodeSnapshot {
  name: string;
  /** Precondition of every write the planner asks for on this node. */
  resourceVersion: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  /** `spec.unschedulable` (cordoned). */
  unschedulable: boolean;
  conditions: NodeConditions;
  /** `status.nodeInfo.bootID`; changes on every boot. Empty when not reported. */
  bootID: string;
  /** `status.nodeInfo.machineID` (FleetLock maps its clients to nodes with it). */
  machineID?: string;
}

function record(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) if (typeof value === 'string') out[k] = value;
  return out;
}

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

const CONDITION_STATUSES: readonly string[] = ['True', 'False', 'Unknown'];

/**
 * Copies what the planner needs out of a Node object as the API returns it (plain JSON). Never
 * throws: missing or malformed fields become empty values.
 */
export function snapshotNode(node: unknown): NodeSnapshot {
  const metadata = field(node, 'metadata');
  const spec = field(node, 'spec');
  const status = field(node, 'status');
  const nodeInfo = field(status, 'nodeInfo');
  const conditions: NodeConditions = {};
  const list = field(status, 'conditions');
  if (Array.isArray(list)) {
    for (const c of list) {
      const type = field(c, 'type');
      const value = field(c, 'status');
      if (
        (type === 'Ready' || type === 'DiskPressure' || type === 'NetworkUnavailable') &&
        typeof value === 'string' &&
        CONDITION_STATUSES.includes(value)
      ) {
        conditions[type] = value as ConditionStatus;
      }
    }
  }
  const name = field(metadata, 'name');
  const rv = field(metadata, 'resourceVersion');
  const bootID = field(nodeInfo, 'bootID');
  const machineID = field(nodeInfo, 'machineID');
  return {
    name: typeof name === 'string' ? name : '',
    resourceVersion: typeof rv === 'string' ? rv : '',
    labels: record(field(metadata, 'labels')),
    annotations: record(field(metadata, 'annotations')),
    unschedulable: field(spec, 'unschedulable') === true,
    conditions,
    bootID: typeof bootID === 'string' ? bootID : '',
    ...(typeof machineID === 'string' ? { machineID } : {}),
  };
}
