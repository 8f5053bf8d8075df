/**
 * VCDMachineTemplate.status: `capacity`, the resources one machine of the template has (the
 * Cluster API contract's field the cluster autoscaler reads to scale a MachineDeployment from
 * zero), and the conditions saying why it is missing.
 */
import { conditionsSchema } from './schema.js';

type Schema = Record<string, unknown>;

/** A resource quantity (`2`, `4096Mi`), as Kubernetes writes one. */
const quantity: Schema = {
  'x-kubernetes-int-or-string': true,
  pattern: '^[0-9]+(\\.[0-9]+)?(m|Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$',
};

export const machineTemplateStatusSchema: Schema = {
  type: 'object',
  properties: {
    capacity: {
      type: 'object',
      description: 'Resources of one machine of the template (cpu, memory), for scaling from zero',
      additionalProperties: quantity,
    },
    conditions: conditionsSchema,
    observedGeneration: { type: 'integer' },
  },
};
