/**
 * The VCDMachine's own hardware, for VDCs without sizing policies (Flex VDCs): CPU, cores per
 * socket and memory (set in the VM's VmSpecSection before its first power-on), data disks beside
 * the template's (CAPV's `dataDisks`), and how its VM is powered off when the machine is deleted
 * (CAPV's `powerOffMode`). Spread into `machineSpecSchema`; VCD refuses what a schema cannot say.
 */

type Schema = Record<string, unknown>;

/** A disk size, as `diskSize` takes it. */
const diskQuantity = (description: string): Schema => ({
  'x-kubernetes-int-or-string': true,
  description,
  pattern: '^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$',
});

/** The disk controllers a data disk may sit on (VCD's DiskSettings AdapterType 4-7). */
export const DATA_DISK_BUS_TYPES = ['paravirtual', 'lsilogicsas', 'sata', 'nvme'] as const;

export const hardwareProperties: Record<string, Schema> = {
  numCPUs: {
    type: 'integer',
    minimum: 1,
    maximum: 768,
    description: 'Virtual CPUs of the VM (absent: the sizing policy’s, else the catalog template’s)',
  },
  coresPerSocket: {
    type: 'integer',
    minimum: 1,
    maximum: 768,
    description: 'Cores per virtual socket; numCPUs must be a multiple of it',
  },
  memoryMiB: {
    type: 'integer',
    minimum: 4,
    maximum: 25165824,
    multipleOf: 4,
    description:
      'Memory of the VM in MiB, a multiple of 4 (absent: the sizing policy’s, else the template’s)',
  },
  dataDisks: {
    type: 'array',
    maxItems: 8,
    description:
      'Disks added beside the template’s before the first power-on (etcd, containerd); one controller per bus type',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: {
      type: 'object',
      required: ['name', 'size'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 63, description: 'Name of the disk (unique)' },
        size: diskQuantity('Size of the disk (a quantity, e.g. 20Gi)'),
        storageProfile: {
          type: 'string',
          maxLength: 253,
          nullable: true,
          description: 'Storage profile of the disk (absent: the VM’s)',
        },
        busType: {
          type: 'string',
          enum: [...DATA_DISK_BUS_TYPES],
          description: 'Disk controller (default paravirtual)',
        },
      },
    },
  },
  powerOffMode: {
    type: 'string',
    enum: ['hard', 'trySoft', 'soft'],
    description:
      'On delete: hard powers the VM off; trySoft shuts the guest down and powers off after guestSoftPowerOffTimeoutSeconds; soft only shuts it down (default hard)',
  },
  guestSoftPowerOffTimeoutSeconds: {
    type: 'integer',
    minimum: 1,
    maximum: 86400,
    description: 'trySoft: how long the guest may take to shut down before a hard power-off (default 300)',
  },
};

/** CEL rules of the hardware fields, checked with the rest of the spec. */
export const hardwareValidations: Schema[] = [
  {
    rule: '!has(self.coresPerSocket) || (has(self.numCPUs) && self.numCPUs % self.coresPerSocket == 0)',
    message: 'coresPerSocket needs numCPUs, a multiple of it',
  },
];

/** VCDMachine.status: when the guest was asked to shut down (trySoft and soft deletes). */
export const hardwareStatusProperties: Record<string, Schema> = {
  guestShutdownRequestedAt: {
    type: 'string',
    format: 'date-time',
    description: 'When the VM’s guest was asked to shut down, as the machine is deleted',
  },
};
