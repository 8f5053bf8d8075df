/** The request bodies CloudAPI load balancer writes accept. */
import { OPT_REF, REF, type Shape } from './validate.js';

const PORT: Shape = { int: [1, 65535] };
const str = { nullable: 'string' } as const;

export interface PoolBody {
  name: string;
  description?: string;
  enabled?: boolean;
  defaultPort?: number;
  gracefulTimeoutPeriod?: number;
  algorithm?: string;
  healthMonitors?: { type: string }[];
  members?: { ipAddress: string; port?: number; ratio?: number; enabled?: boolean }[];
  gatewayRef: { id: string };
  passiveMonitoringEnabled?: boolean;
}

export const POOL_SHAPE: Shape = {
  required: ['name', 'gatewayRef'],
  object: {
    id: str,
    name: 'string',
    description: str,
    enabled: 'boolean',
    defaultPort: PORT,
    gracefulTimeoutPeriod: { int: [-1, 7200] },
    algorithm: {
      enum: [
        'ROUND_ROBIN',
        'LEAST_CONNECTIONS',
        'CONSISTENT_HASH',
        'FASTEST_RESPONSE',
        'LEAST_LOAD',
        'FEWEST_SERVERS',
        'RANDOM',
        'FEWEST_TASKS',
        'CORE_AFFINITY',
      ],
    },
    healthMonitors: {
      nullable: {
        list: {
          object: {
            type: { enum: ['HTTP', 'HTTPS', 'TCP', 'UDP', 'PING'] },
            systemDefined: 'boolean',
            name: str,
          },
          required: ['type'],
        },
      },
    },
    members: {
      nullable: {
        list: {
          required: ['ipAddress'],
          object: {
            ipAddress: 'string',
            port: PORT,
            ratio: { int: [1, 20] },
            enabled: 'boolean',
            healthStatus: 'any',
            markedDownBy: 'any',
            detailedHealthMessage: 'any',
          },
        },
      },
    },
    gatewayRef: REF,
    persistenceProfile: 'any',
    passiveMonitoringEnabled: 'boolean',
    sslEnabled: 'boolean',
    caCertificateRefs: 'any',
    commonNameCheckEnabled: 'boolean',
    domainNames: 'any',
    memberGroupRef: OPT_REF,
    // Fields VCD reports and clients often send back on PUT (ignored).
    status: 'any',
    healthStatus: 'any',
    memberCount: 'any',
    enabledMemberCount: 'any',
    upMemberCount: 'any',
    virtualServiceRefs: 'any',
  },
};

export interface VsBody {
  name: string;
  description?: string;
  enabled?: boolean;
  virtualIpAddress: string;
  loadBalancerPoolRef: { id: string };
  gatewayRef: { id: string };
  serviceEngineGroupRef: { id: string };
  servicePorts: {
    portStart: number;
    portEnd?: number;
    sslEnabled?: boolean;
    tcpUdpProfile?: { type: string };
  }[];
  applicationProfile: { name?: string; type: string; systemDefined?: boolean };
}

export const VS_SHAPE: Shape = {
  required: [
    'name',
    'virtualIpAddress',
    'loadBalancerPoolRef',
    'gatewayRef',
    'serviceEngineGroupRef',
    'servicePorts',
    'applicationProfile',
  ],
  object: {
    id: str,
    name: 'string',
    description: str,
    enabled: 'boolean',
    virtualIpAddress: 'string',
    ipv6VirtualIpAddress: str,
    loadBalancerPoolRef: REF,
    gatewayRef: REF,
    serviceEngineGroupRef: REF,
    certificateRef: OPT_REF,
    servicePorts: {
      list: {
        required: ['portStart'],
        object: {
          portStart: PORT,
          portEnd: { nullable: PORT },
          sslEnabled: 'boolean',
          tcpUdpProfile: {
            nullable: {
              object: {
                type: { enum: ['TCP_PROXY', 'TCP_FAST_PATH', 'UDP_FAST_PATH'] },
                systemDefined: 'boolean',
              },
              required: ['type'],
            },
          },
        },
      },
    },
    applicationProfile: {
      required: ['type'],
      object: {
        name: str,
        type: { enum: ['L4', 'L4_TLS', 'HTTP', 'HTTPS'] },
        systemDefined: 'boolean',
        id: str,
      },
    },
    transparentModeEnabled: 'boolean',
    status: 'any',
    healthStatus: 'any',
    healthMessage: 'any',
    detailedHealthMessage: 'any',
  },
};
