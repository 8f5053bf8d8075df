/**
 * Rendering: a catalogue entry's manifests, with a stack's settings laid over them, as the objects
 * to apply. Pure. Every object carries the stack's labels (so pruning finds exactly what this
 * operator created for this stack); the workloads' pod templates carry the version, so a rollout
 * at a new version is visible on each pod.
 */
import type { ProtocolName } from '@capstan/reboot-protocol';
import type { RebootStack } from '../api/reboot-stack.js';
import {
  COMPONENTS,
  type ComponentName,
  PROTOCOL_ANNOTATION,
  stackLabels,
  VERSION_OPERATOR_MANAGER,
} from '../api/reboot-stack.js';
import type { CatalogueEntry, Manifest } from '../catalogue.js';
import { applyRank } from '../kinds.js';

/** One object to apply and the component it belongs to. */
export interface RenderedObject {
  readonly component: ComponentName;
  readonly object: Manifest;
}

/** The identity of an object: apiVersion, kind, namespace and name. */
export function objectKey(m: Pick<Manifest, 'apiVersion' | 'kind' | 'metadata'>): string {
  return `${m.apiVersion}/${m.kind}/${m.metadata.namespace ?? ''}/${m.metadata.name}`;
}

/** Sets (or replaces) `--name=value` in an argument list; other arguments keep their order. */
export function withFlag(args: readonly string[], name: string, value: string): string[] {
  const flag = `--${name}`;
  const out = args.filter((a) => a !== flag && !a.startsWith(`${flag}=`));
  const at = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  out.splice(at < 0 ? out.length : at, 0, `${flag}=${value}`);
  return out;
}

interface Container {
  name: string;
  args?: string[];
  resources?: unknown;
  [k: string]: unknown;
}
interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[]; nodeSelector?: Record<string, string>; tolerations?: unknown[] };
}
interface Workload {
  spec: {
    replicas?: number;
    template: PodTemplate;
    updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string } };
  };
}

function label(object: Manifest, stack: RebootStack, component: ComponentName, version: string): void {
  object.metadata.labels = {
    ...object.metadata.labels,
    [stackLabels.managedBy]: VERSION_OPERATOR_MANAGER,
    [stackLabels.stack]: stack.metadata.name as string,
    [stackLabels.component]: component,
    [stackLabels.version]: version,
  };
}

function configureWorkload(
  workload: Workload,
  stack: RebootStack,
  component: ComponentName,
  version: string,
  protocol: ProtocolName,
) {
  const spec = stack.spec;
  const template = workload.spec.template;
  template.metadata = {
    ...template.metadata,
    annotations: {
      ...template.metadata?.annotations,
      [stackLabels.version]: version,
      [PROTOCOL_ANNOTATION]: protocol,
    },
  };
  const settings = component === 'coordinator' ? spec.coordinator : spec.agent;
  const container = template.spec.containers[0] as Container;
  let args = withFlag(container.args ?? [], 'protocol', protocol);
  for (const [name, value] of Object.entries(settings?.flags ?? {})) args = withFlag(args, name, value);
  container.args = args;
  if (settings?.resources) container.resources = settings.resources;
  if (component === 'coordinator') {
    if (spec.coordinator?.replicas !== undefined) workload.spec.replicas = spec.coordinator.replicas;
    return;
  }
  const agent = spec.agent;
  if (agent?.nodeSelector) template.spec.nodeSelector = agent.nodeSelector;
  if (agent?.tolerations) template.spec.tolerations = agent.tolerations;
  if (agent?.maxUnavailable !== undefined) {
    workload.spec.updateStrategy = {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: agent.maxUnavailable },
    };
  }
}

/**
 * The objects of `entry` for `stack`, coordinator first. An object both components publish (the
 * namespace) is rendered once, under the first; each component's objects in apply order. `protocols` says what each component speaks
 * (they differ only midway through a migration); default: the stack's protocol.
 */
export function renderStack(
  entry: CatalogueEntry,
  stack: RebootStack,
  protocols: Partial<Record<ComponentName, ProtocolName>> = {},
): RenderedObject[] {
  const protocol = (c: ComponentName): ProtocolName => protocols[c] ?? stack.spec.protocol ?? 'capstan';
  const seen = new Set<string>();
  const out: RenderedObject[] = [];
  for (const component of COMPONENTS) {
    for (const manifest of entry.manifests[component]) {
      const key = objectKey(manifest);
      if (seen.has(key)) continue;
      seen.add(key);
      const object = structuredClone(manifest);
      label(object, stack, component, entry.version);
      if (object.kind === 'Deployment' || object.kind === 'DaemonSet') {
        configureWorkload(
          object as unknown as Workload,
          stack,
          component,
          entry.version,
          protocol(component),
        );
      }
      out.push({ component, object });
    }
  }
  // Stable: components stay in order, and within one the namespace and identities come first.
  const rankOf = (r: RenderedObject) => COMPONENTS.indexOf(r.component) * 100 + applyRank(r.object.kind);
  return out.sort((x, y) => rankOf(x) - rankOf(y));
}

/** The component's workload (its Deployment or DaemonSet) among rendered objects. */
export function workloadOf(
  objects: readonly RenderedObject[],
  component: ComponentName,
): Manifest | undefined {
  const kind = component === 'coordinator' ? 'Deployment' : 'DaemonSet';
  return objects.find((o) => o.component === component && o.object.kind === kind)?.object;
}
