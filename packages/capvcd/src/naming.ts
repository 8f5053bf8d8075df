/**
 * Names and ownership markers, derived from Kubernetes names only, so that a lost status or a
 * `clusterctl move` finds the same vApp, VM and load balancer again instead of making new ones
 * (#211). The markers go into VCD descriptions: a vApp or VM is ours only if it carries ours.
 */

/** What a VM naming template may refer to. */
export interface NamingInput {
  namespace: string;
  cluster: string;
  machine: string;
  vcdMachine: string;
}

const PLACEHOLDER = /\{\{\s*\.([a-zA-Z]+)\.name\s*\}\}/g;
const FIELDS: Record<string, keyof NamingInput> = {
  machine: 'machine',
  vcdMachine: 'vcdMachine',
  cluster: 'cluster',
};

/** A VM name is a DNS label (it becomes the hostname): at most 63 of [a-z0-9-], no dash at either end. */
const VM_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The VM's name: the VCDMachine's name, or the naming template filled in.
 * @returns the name, or an error message saying what is wrong with the template or its result.
 */
export function vmNameFor(
  template: string | undefined,
  input: NamingInput,
): { name: string } | { error: string } {
  let unknown: string | undefined;
  const name = (template ?? '{{ .vcdMachine.name }}').replace(PLACEHOLDER, (_, field: string) => {
    const key = FIELDS[field];
    if (!key) unknown = field;
    return key ? input[key] : '';
  });
  if (unknown)
    return { error: `vmNamingTemplate refers to .${unknown}.name; known: .machine, .vcdMachine, .cluster` };
  if (name.includes('{{')) return { error: 'vmNamingTemplate holds an expression other than {{ .x.name }}' };
  if (!VM_NAME.test(name)) return { error: `VM name "${name}" is not a DNS label of at most 63 characters` };
  return { name };
}

/** The cluster's vApp: one per cluster, named after the VCDCluster (as CAPVCD names it). */
export const vappNameFor = (vcdCluster: string): string => vcdCluster;

/** The description marker of the cluster's vApp. */
export const vappMarker = (namespace: string, vcdCluster: string): string =>
  `capvcd.capstan.dev cluster ${namespace}/${vcdCluster}`;

/** The description marker of a machine's VM. */
export const vmMarker = (namespace: string, vcdMachine: string): string =>
  `capvcd.capstan.dev machine ${namespace}/${vcdMachine}`;

/** The control-plane load balancer's pool and virtual service name. */
export const loadBalancerName = (namespace: string, vcdCluster: string): string =>
  `capvcd-${namespace}-${vcdCluster}-tcp`;
