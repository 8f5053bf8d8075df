/**
 * Where the `RebootGroup` resource lives on the API server. The coordinator owns its meaning
 * (schema, budget, planning); its coordinates are published here, with the node protocol, so a
 * management layer that writes or pauses groups (the version operator) depends on the protocol
 * alone and never on the coordinator's code.
 */

/** API group of the coordinator's resources. */
export const REBOOT_GROUP_API_GROUP = 'reboot.capstan.dev';
/** API version of the `RebootGroup` resource. */
export const REBOOT_GROUP_VERSION = 'v1alpha1';

/**
 * The `RebootGroup` resource's coordinates, in the shape the runtime's `defineResource` takes
 * (cluster-scoped).
 */
export const rebootGroupResource = Object.freeze({
  group: REBOOT_GROUP_API_GROUP,
  version: REBOOT_GROUP_VERSION,
  kind: 'RebootGroup',
  plural: 'rebootgroups',
  namespaced: false,
} as const);

/** The `apiVersion` a `RebootGroup` object carries. */
export const REBOOT_GROUP_API_VERSION = `${REBOOT_GROUP_API_GROUP}/${REBOOT_GROUP_VERSION}` as const;
