/**
 * Names and ownership markers, derived from Kubernetes names only, so that a lost status or a
 * `clusterctl move` finds the same vApp, VM and load balancer again instead of making new ones
 * (#211). The markers go into VCD descriptions: a vApp or VM is ours only if it carries ours.
 */
import type { KubeObject } from '@capstan/runtime';
import type { Value } from './template/functions.js';
import { execute, TemplateError } from './template/go-template.js';

/**
 * What a VM naming template may refer to: `.machine` (the Cluster API Machine) and `.vcdMachine`,
 * as CAPVCD passes them, and `.cluster` (its name, this provider's addition).
 */
export interface NamingInput {
  cluster: string;
  /** The Machine; absent until Cluster API has made it (the VCDMachine then stands in). */
  machine?: KubeObject;
  vcdMachine: KubeObject;
}

/** A VM name is a DNS label (it becomes the hostname): at most 63 of [a-z0-9-], no dash at either end. */
const VM_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The VM's name: the VCDMachine's name, or the naming template (Go's text/template with sprig's
 * functions, as CAPVCD reads it) executed. "" means no template, as in CAPVCD.
 * @returns the name, or an error message saying what is wrong with the template or its result.
 */
export function vmNameFor(
  template: string | undefined,
  input: NamingInput,
): { name: string } | { error: string } {
  if (!template) return checked(input.vcdMachine.metadata.name ?? '', []);
  const data = {
    machine: input.machine ?? input.vcdMachine,
    vcdMachine: input.vcdMachine,
    cluster: { metadata: { name: input.cluster } },
  };
  try {
    const { text, missing } = execute(template, data as unknown as Value);
    return checked(text, missing);
  } catch (err) {
    if (err instanceof TemplateError) return { error: `vmNamingTemplate: ${err.message}` };
    throw err;
  }
}

function checked(name: string, missing: string[]): { name: string } | { error: string } {
  if (VM_NAME.test(name)) return { name };
  const why = missing.length > 0 ? ` (no value for ${[...new Set(missing)].join(', ')})` : '';
  return { error: `VM name "${name}" is not a DNS label of at most 63 characters${why}` };
}

/** The cluster's vApp: one per cluster, named after the VCDCluster (as CAPVCD names it). */
export const vappNameFor = (vcdCluster: string): string => vcdCluster;

/** How every description marker of this provider starts, whatever it marks. */
export const MARKER_PREFIX = 'capvcd.capstan.dev ';

/** The description marker of the cluster's vApp. */
export const vappMarker = (namespace: string, vcdCluster: string): string =>
  `${MARKER_PREFIX}cluster ${namespace}/${vcdCluster}`;

/** The description marker of a machine's VM. */
export const vmMarker = (namespace: string, vcdMachine: string): string =>
  `${MARKER_PREFIX}machine ${namespace}/${vcdMachine}`;

/** The control-plane load balancer's pool and virtual service name. */
export const loadBalancerName = (namespace: string, vcdCluster: string): string =>
  `capvcd-${namespace}-${vcdCluster}-tcp`;

/** The VM's URN, from its `id` or (when VCD omits it) its href. */
export function vmUrn(vm: { id: string; href: string }): string {
  if (vm.id.startsWith('urn:vcloud:vm:')) return vm.id;
  const uuid = /vm-([0-9a-fA-F-]{36})/.exec(vm.href)?.[1];
  return `urn:vcloud:vm:${uuid ?? vm.id}`;
}

/**
 * The site-relative path of the VM a providerID names (`/api/vApp/vm-<uuid>`), or undefined for
 * a providerID that names no VCD VM.
 */
export function vmPathOf(providerID: string | undefined): string | undefined {
  const uuid = /^vmware-cloud-director:\/\/urn:vcloud:vm:([0-9a-fA-F-]{36})$/.exec(providerID ?? '')?.[1];
  return uuid ? `/api/vApp/vm-${uuid}` : undefined;
}
