/**
 * NSX-T ALB virtual services: a VIP and ports in front of a pool. Writes answer 202 with a
 * `Location` task; the VIP is marked used on the gateway (category LOAD_BALANCER) when the create
 * lands and released when the last virtual service on it goes.
 */
import { randomUUID } from 'node:crypto';
import type { EdgeGateway, LbPool, SegAssignment, ServicePort, VirtualService } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { urn } from '../xml/refs.js';
import { virtualServiceJson } from './alb-json.js';
import { type AsyncCollection, asyncWrite, callerOrg, gatewayFromUrn } from './async.js';
import { listReply, urnParam } from './envelope.js';
import { gatewayMayUse, markFloatingIp } from './gateway-ips.js';
import { VS_SHAPE, type VsBody } from './shapes.js';
import { readJson } from './validate.js';

const VIRTUAL_SERVICES: AsyncCollection = {
  kind: 'loadBalancerVirtualService',
  path: '/cloudapi/1.0.0/loadBalancer/virtualServices',
  lock: 'virtualServices',
};

/** The body's pool and service engine group, both of gateway `g`. */
function poolAndSeg(sim: Simulator, g: EdgeGateway, b: VsBody): { pool: LbPool; seg: SegAssignment } {
  const w = sim.world;
  const poolId = /^urn:vcloud:loadBalancerPool:([0-9a-f-]{36})$/i
    .exec(b.loadBalancerPoolRef.id)?.[1]
    ?.toLowerCase();
  const pool = poolId ? w.pools.get(poolId) : undefined;
  if (!pool || pool.orgId !== g.orgId) throw errors.forbidden();
  if (pool.gatewayId !== g.id)
    throw errors.badRequest(`Pool "${pool.name}" is not on edge gateway "${g.name}".`);
  const segId = /^urn:vcloud:serviceEngineGroup:([0-9a-f-]{36})$/i
    .exec(b.serviceEngineGroupRef.id)?.[1]
    ?.toLowerCase();
  const seg = [...w.segAssignments.values()].find((a) => a.segId === segId && a.gatewayId === g.id);
  if (!seg) throw errors.badRequest('The service engine group is not assigned to the edge gateway.');
  return { pool, seg };
}

/** The body's service ports, with defaults. */
function servicePorts(b: VsBody): ServicePort[] {
  return b.servicePorts.map((p) => ({
    portStart: p.portStart,
    portEnd: p.portEnd ?? p.portStart,
    sslEnabled: p.sslEnabled ?? false,
    tcpUdpProfile: { type: p.tcpUdpProfile?.type ?? 'TCP_PROXY', systemDefined: true },
  }));
}

/**
 * The VIP must be the gateway's, the ports well formed, the VIP not held by something else, and
 * no port served twice on it.
 */
function checkVip(sim: Simulator, g: EdgeGateway, vip: string, ports: ServicePort[], id: string): void {
  if (!gatewayMayUse(sim.world, g, vip))
    throw errors.badRequest(
      g.ipSpaceIds
        ? `The virtual IP ${vip} is not a floating IP allocated to the org in an IP Space of edge gateway "${g.name}".`
        : `The virtual IP ${vip} is not an allocated IP of edge gateway "${g.name}".`,
    );
  for (const p of ports)
    if (p.portEnd < p.portStart)
      throw errors.badRequest(`portEnd ${p.portEnd} is below portStart ${p.portStart}.`);
  const holder = g.used.get(vip);
  if (holder && holder.category !== 'LOAD_BALANCER')
    throw errors.badRequest(`The IP ${vip} is in use (${holder.category}).`);
  for (const other of sim.world.virtualServices.values()) {
    if (other.id === id || other.gatewayId !== g.id || other.virtualIpAddress !== vip) continue;
    if (
      other.servicePorts.some((o) => ports.some((p) => p.portStart <= o.portEnd && o.portStart <= p.portEnd))
    )
      throw errors.badRequest(
        `Virtual service "${other.name}" already serves ${vip} on an overlapping port.`,
      );
  }
}

/** The virtual service a create or update body describes, checked as VCD does. */
function virtualServiceFrom(sim: Simulator, ctx: Ctx, b: VsBody, id: string): VirtualService {
  const w = sim.world;
  const g = gatewayFromUrn(sim, ctx, b.gatewayRef.id);
  const { pool, seg } = poolAndSeg(sim, g, b);
  if ([...w.virtualServices.values()].some((v) => v.gatewayId === g.id && v.name === b.name && v.id !== id))
    throw errors.duplicateName(
      `A virtual service named "${b.name}" already exists on edge gateway "${g.name}".`,
    );
  const ports = servicePorts(b);
  checkVip(sim, g, b.virtualIpAddress, ports, id);
  if (!id || !w.virtualServices.has(id)) {
    const deployed = [...w.virtualServices.values()].filter((v) => v.segAssignmentId === seg.id).length;
    if (deployed >= seg.maxVirtualServices)
      throw errors.badRequest(
        `Service engine group "${seg.segName}" has no room for another virtual service.`,
      );
  }
  return {
    id,
    name: b.name,
    description: b.description ?? '',
    gatewayId: g.id,
    orgId: g.orgId,
    enabled: b.enabled ?? true,
    virtualIpAddress: b.virtualIpAddress,
    poolId: pool.id,
    segAssignmentId: seg.id,
    servicePorts: ports,
    applicationProfile: {
      name: b.applicationProfile.name ?? 'System-L4-Application',
      type: b.applicationProfile.type,
      systemDefined: b.applicationProfile.systemDefined ?? true,
    },
  };
}

/** Marks the VIP used by the virtual service on its gateway. */
function holdVip(sim: Simulator, v: VirtualService): void {
  const g = sim.world.edgeGateways.get(v.gatewayId)!;
  const ownerId = urn('loadBalancerVirtualService', v.id);
  g.used.set(v.virtualIpAddress, { category: 'LOAD_BALANCER', ownerId, ownerName: v.name });
  markFloatingIp(sim.world, g, v.virtualIpAddress, { id: ownerId, name: v.name });
}

/** Frees the VIP unless another virtual service on the gateway still serves it. */
function releaseVip(sim: Simulator, v: VirtualService): void {
  const g = sim.world.edgeGateways.get(v.gatewayId)!;
  const shared = [...sim.world.virtualServices.values()].some(
    (o) => o.id !== v.id && o.gatewayId === g.id && o.virtualIpAddress === v.virtualIpAddress,
  );
  if (shared) return;
  g.used.delete(v.virtualIpAddress);
  markFloatingIp(sim.world, g, v.virtualIpAddress);
}

/** Registers the virtual service routes and the per-gateway summaries. */
export function virtualServiceRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const visibleVs = (ctx: Ctx) =>
    w.visible(w.virtualServices, urnParam(ctx, 'loadBalancerVirtualService'), callerOrg(ctx));
  r.add('POST', VIRTUAL_SERVICES.path, async (ctx) => {
    const vs = virtualServiceFrom(sim, ctx, await readJson<VsBody>(ctx, VS_SHAPE), randomUUID());
    return asyncWrite(sim, ctx, VIRTUAL_SERVICES, vs, 'loadBalancerVirtualServiceCreate', () => {
      w.virtualServices.set(vs.id, vs);
      holdVip(sim, vs);
    });
  });
  r.add('GET', `${VIRTUAL_SERVICES.path}/{id}`, (ctx) => json(200, virtualServiceJson(w, visibleVs(ctx))));
  r.add('PUT', `${VIRTUAL_SERVICES.path}/{id}`, async (ctx) => {
    const old = visibleVs(ctx);
    const next = virtualServiceFrom(sim, ctx, await readJson<VsBody>(ctx, VS_SHAPE), old.id);
    return asyncWrite(sim, ctx, VIRTUAL_SERVICES, next, 'loadBalancerVirtualServiceUpdate', () => {
      releaseVip(sim, old);
      w.virtualServices.set(old.id, next);
      holdVip(sim, next);
    });
  });
  r.add('DELETE', `${VIRTUAL_SERVICES.path}/{id}`, (ctx) => {
    const v = visibleVs(ctx);
    return asyncWrite(sim, ctx, VIRTUAL_SERVICES, v, 'loadBalancerVirtualServiceDelete', () => {
      releaseVip(sim, v);
      w.virtualServices.delete(v.id);
    });
  });
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}/loadBalancer/virtualServiceSummaries', (ctx) => {
    const g = w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), callerOrg(ctx));
    const mine = [...w.virtualServices.values()].filter((v) => v.gatewayId === g.id);
    return listReply(
      ctx,
      mine.map((v) => virtualServiceJson(w, v)),
    );
  });
}
