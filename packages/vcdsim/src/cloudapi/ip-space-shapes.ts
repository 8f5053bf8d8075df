/** The request bodies the IP Space routes accept (as the SDK sends them). */
import { OPT_REF, type Shape } from './validate.js';

const str = { nullable: 'string' } as const;

/** `POST …/ipSpaces/{id}/allocate`. */
export interface AllocateBody {
  type: string;
  quantity?: number;
  value?: string;
  prefixLength?: number;
}

export const ALLOCATE_SHAPE: Shape = {
  required: ['type'],
  object: {
    type: { enum: ['FLOATING_IP', 'IP_PREFIX'] },
    quantity: { nullable: { int: [1, 1024] } },
    value: str,
    prefixLength: { nullable: { int: [1, 32] } },
  },
};

/** `PUT …/ipSpaces/{id}/allocations/{allocationId}`: the whole allocation, as read. */
export interface AllocationBody {
  description?: string | null;
  usageState?: string | null;
  value?: string | null;
}

export const ALLOCATION_SHAPE: Shape = {
  object: {
    id: str,
    description: str,
    orgRef: OPT_REF,
    type: str,
    usageCategories: { nullable: { list: 'string' } },
    usageState: { nullable: { enum: ['UNUSED', 'USED', 'USED_MANUAL'] } },
    value: str,
    usedByRef: OPT_REF,
    allocationDate: str,
  },
};
