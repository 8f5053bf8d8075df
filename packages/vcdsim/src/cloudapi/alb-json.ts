/** The JSON forms of NSX-T ALB pools and virtual services, with health derived from the VMs. */
import type { LbPool, VirtualService, World } from '../model/world.js';
import { urn } from '../xml/refs.js';
import { entityRef } from './envelope.js';
import { memberHealth, poolHealth } from './health.js';
import { gatewayRef } from './json.js';

/** A pool's members with the health of the VM behind each address. */
function membersWithHealth(w: World, p: LbPool) {
  return p.members.map((m) => {
    const vm = w.vmHoldingIp(m.ipAddress);
    const running =
      !!vm && vm.status === 4 && vm.toolsRunning && vm.nics.some((n) => n.ipAddress === m.ipAddress);
    return {
      ...m,
      healthStatus: memberHealth({ enabled: m.enabled, vmRunning: running, serving: !!vm?.serving }),
    };
  });
}

/** A pool (`/loadBalancer/pools/{id}`). */
export function poolJson(w: World, p: LbPool) {
  const ms = membersWithHealth(w, p);
  const g = w.edgeGateways.get(p.gatewayId)!;
  return {
    id: urn('loadBalancerPool', p.id),
    name: p.name,
    description: p.description,
    enabled: p.enabled,
    status: 'REALIZED',
    healthStatus: poolHealth(
      p.enabled,
      ms.map((m) => m.healthStatus),
    ),
    memberCount: ms.length,
    enabledMemberCount: ms.filter((m) => m.enabled).length,
    upMemberCount: ms.filter((m) => m.healthStatus === 'UP').length,
    defaultPort: p.defaultPort,
    gracefulTimeoutPeriod: p.gracefulTimeoutPeriod,
    algorithm: p.algorithm,
    healthMonitors: p.healthMonitors,
    persistenceProfile: null,
    members: ms.map((m) => ({
      ...m,
      markedDownBy: m.healthStatus === 'DOWN' ? ['HEALTH_MONITOR'] : null,
      detailedHealthMessage: m.healthStatus === 'DOWN' ? 'Server is not reachable' : null,
    })),
    memberGroupRef: null,
    virtualServiceRefs: [...w.virtualServices.values()]
      .filter((v) => v.poolId === p.id)
      .map((v) => entityRef(v.name, urn('loadBalancerVirtualService', v.id))),
    gatewayRef: gatewayRef(g),
    caCertificateRefs: null,
    commonNameCheckEnabled: false,
    domainNames: null,
    passiveMonitoringEnabled: p.passiveMonitoringEnabled,
    sslEnabled: false,
  };
}

/** A virtual service (`/loadBalancer/virtualServices/{id}`); its health is its pool's. */
export function virtualServiceJson(w: World, v: VirtualService) {
  const pool = w.pools.get(v.poolId);
  const seg = w.segAssignments.get(v.segAssignmentId)!;
  const health = !v.enabled ? 'DISABLED' : pool ? poolJson(w, pool).healthStatus : 'DOWN';
  return {
    id: urn('loadBalancerVirtualService', v.id),
    name: v.name,
    description: v.description,
    enabled: v.enabled,
    status: 'REALIZED',
    virtualIpAddress: v.virtualIpAddress,
    ipv6VirtualIpAddress: null,
    loadBalancerPoolRef: entityRef(pool?.name ?? '', urn('loadBalancerPool', v.poolId)),
    gatewayRef: gatewayRef(w.edgeGateways.get(v.gatewayId)!),
    serviceEngineGroupRef: entityRef(seg.segName, urn('serviceEngineGroup', seg.segId)),
    certificateRef: null,
    servicePorts: v.servicePorts,
    applicationProfile: v.applicationProfile,
    healthStatus: health,
    healthMessage: health === 'UP' ? 'The virtual service is up' : 'The virtual service is not serving',
    detailedHealthMessage: null,
    transparentModeEnabled: false,
  };
}
