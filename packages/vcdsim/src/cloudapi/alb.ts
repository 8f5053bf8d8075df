/**
 * NSX-T ALB pools and virtual services: create/update/delete answer 202 with a `Location` task
 * (the change lands when it finishes); GETs and the per-gateway summaries report health derived
 * from the VMs behind the members (see health.ts).
 */
import { randomUUID } from 'node:crypto';
import { inRanges, ipToInt } from '../model/ippool.js';
import type { LbPool, VirtualService } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, empty, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { path, urn } from '../xml/refs.js';
import { checkTenantContext, entityRef, listReply, urnParam } from './envelope.js';
import { memberHealth, poolHealth } from './health.js';
import { gatewayRef } from './json.js';
import { POOL_SHAPE, type PoolBody, VS_SHAPE, type VsBody } from './shapes.js';
import { readJson } from './validate.js';

/** Registers pool, virtual service and summary routes. */
export function albRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const org = (ctx: Ctx) => {
    checkTenantContext(ctx);
    return ctx.session!.org.id;
  };
  const gatewayOf = (ctx: Ctx, id: string | undefined) => {
    const gid = /^urn:vcloud:gateway:([0-9a-f-]{36})$/i.exec(id ?? '')?.[1]?.toLowerCase();
    return w.visible(w.edgeGateways, gid ?? '', org(ctx));
  };

  const members = (p: LbPool) =>
    p.members.map((m) => {
      const vm = w.vmHoldingIp(m.ipAddress);
      const running =
        !!vm && vm.status === 4 && vm.toolsRunning && vm.nics.some((n) => n.ipAddress === m.ipAddress);
      return {
        ...m,
        healthStatus: memberHealth({ enabled: m.enabled, vmRunning: running, serving: !!vm?.serving }),
      };
    });
  const poolJson = (p: LbPool) => {
    const ms = members(p);
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
  };
  const vsJson = (v: VirtualService) => {
    const pool = w.pools.get(v.poolId);
    const seg = w.segAssignments.get(v.segAssignmentId)!;
    const health = !v.enabled ? 'DISABLED' : pool ? poolJson(pool).healthStatus : 'DOWN';
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
  };

  /** A CloudAPI async write: 202, empty body, the task in `Location`. */
  const task = (ctx: Ctx, kind: string, id: string, name: string, op: string, effect: () => void) => {
    const t = sim.tasks.start({
      operationName: op,
      operation: `${op} ${name}`,
      owner: {
        type: 'application/json',
        name,
        path: `/cloudapi/1.0.0/loadBalancer/${kind}/${urn(kind === 'pools' ? 'loadBalancerPool' : 'loadBalancerVirtualService', id)}`,
        urn: urn(kind === 'pools' ? 'loadBalancerPool' : 'loadBalancerVirtualService', id),
      },
      orgId: ctx.session!.org.id,
      userName: ctx.session!.user.name,
      locks: [`${kind}:${id}`],
      effect,
    });
    return empty(202, { Location: `${ctx.base}${path.task(t.id)}` });
  };

  const poolFrom = (ctx: Ctx, b: PoolBody, id: string): LbPool => {
    const g = gatewayOf(ctx, b.gatewayRef.id);
    if ([...w.pools.values()].some((p) => p.gatewayId === g.id && p.name === b.name && p.id !== id))
      throw errors.duplicateName(`A pool named "${b.name}" already exists on edge gateway "${g.name}".`);
    for (const m of b.members ?? [])
      if (ipToInt(m.ipAddress) === undefined)
        throw errors.badRequest(`"${m.ipAddress}" is not an IPv4 address.`);
    return {
      id,
      name: b.name,
      description: b.description ?? '',
      gatewayId: g.id,
      orgId: g.orgId,
      enabled: b.enabled ?? true,
      defaultPort: b.defaultPort ?? 80,
      gracefulTimeoutPeriod: b.gracefulTimeoutPeriod ?? 1,
      algorithm: b.algorithm ?? 'LEAST_CONNECTIONS',
      healthMonitors: (b.healthMonitors ?? []).map((h) => ({ type: h.type })),
      members: (b.members ?? []).map((m) => ({
        ipAddress: m.ipAddress,
        port: m.port ?? b.defaultPort ?? 80,
        ratio: m.ratio ?? 1,
        enabled: m.enabled ?? true,
      })),
      passiveMonitoringEnabled: b.passiveMonitoringEnabled ?? true,
    };
  };

  r.add('POST', '/cloudapi/1.0.0/loadBalancer/pools', async (ctx) => {
    const pool = poolFrom(ctx, await readJson<PoolBody>(ctx, POOL_SHAPE), randomUUID());
    return task(
      ctx,
      'pools',
      pool.id,
      pool.name,
      'loadBalancerPoolCreate',
      () => void w.pools.set(pool.id, pool),
    );
  });
  r.add('GET', '/cloudapi/1.0.0/loadBalancer/pools/{id}', (ctx) =>
    json(200, poolJson(w.visible(w.pools, urnParam(ctx, 'loadBalancerPool'), org(ctx)))),
  );
  r.add('PUT', '/cloudapi/1.0.0/loadBalancer/pools/{id}', async (ctx) => {
    const old = w.visible(w.pools, urnParam(ctx, 'loadBalancerPool'), org(ctx));
    const next = poolFrom(ctx, await readJson<PoolBody>(ctx, POOL_SHAPE), old.id);
    if (next.gatewayId !== old.gatewayId)
      throw errors.badRequest('A pool cannot move to another edge gateway.');
    return task(
      ctx,
      'pools',
      old.id,
      next.name,
      'loadBalancerPoolUpdate',
      () => void w.pools.set(old.id, next),
    );
  });
  r.add('DELETE', '/cloudapi/1.0.0/loadBalancer/pools/{id}', (ctx) => {
    const p = w.visible(w.pools, urnParam(ctx, 'loadBalancerPool'), org(ctx));
    const user = [...w.virtualServices.values()].find((v) => v.poolId === p.id);
    if (user) throw errors.badRequest(`Pool "${p.name}" is used by virtual service "${user.name}".`);
    return task(ctx, 'pools', p.id, p.name, 'loadBalancerPoolDelete', () => void w.pools.delete(p.id));
  });
  r.add('GET', '/cloudapi/1.0.0/loadBalancer/pools/{id}/members', (ctx) =>
    listReply(ctx, poolJson(w.visible(w.pools, urnParam(ctx, 'loadBalancerPool'), org(ctx))).members),
  );
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}/loadBalancer/poolSummaries', (ctx) => {
    const g = w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), org(ctx));
    return listReply(
      ctx,
      [...w.pools.values()]
        .filter((p) => p.gatewayId === g.id)
        .map((p) => {
          const { members: _m, ...summary } = poolJson(p);
          return summary;
        }),
    );
  });

  const vsFrom = (ctx: Ctx, b: VsBody, id: string): VirtualService => {
    const g = gatewayOf(ctx, b.gatewayRef.id);
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
    if ([...w.virtualServices.values()].some((v) => v.gatewayId === g.id && v.name === b.name && v.id !== id))
      throw errors.duplicateName(
        `A virtual service named "${b.name}" already exists on edge gateway "${g.name}".`,
      );
    if (!inRanges(b.virtualIpAddress, g.uplink.ipRanges))
      throw errors.badRequest(
        `The virtual IP ${b.virtualIpAddress} is not an allocated IP of edge gateway "${g.name}".`,
      );
    const ports = b.servicePorts.map((p) => ({
      portStart: p.portStart,
      portEnd: p.portEnd ?? p.portStart,
      sslEnabled: p.sslEnabled ?? false,
      tcpUdpProfile: { type: p.tcpUdpProfile?.type ?? 'TCP_PROXY', systemDefined: true },
    }));
    for (const p of ports)
      if (p.portEnd < p.portStart)
        throw errors.badRequest(`portEnd ${p.portEnd} is below portStart ${p.portStart}.`);
    const holder = g.used.get(b.virtualIpAddress);
    if (holder && holder.category !== 'LOAD_BALANCER')
      throw errors.badRequest(`The IP ${b.virtualIpAddress} is in use (${holder.category}).`);
    for (const other of w.virtualServices.values()) {
      if (other.id === id || other.gatewayId !== g.id || other.virtualIpAddress !== b.virtualIpAddress)
        continue;
      if (
        other.servicePorts.some((o) =>
          ports.some((p) => p.portStart <= o.portEnd && o.portStart <= p.portEnd),
        )
      )
        throw errors.badRequest(
          `Virtual service "${other.name}" already serves ${b.virtualIpAddress} on an overlapping port.`,
        );
    }
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
  };
  const holdVip = (v: VirtualService) =>
    w.edgeGateways.get(v.gatewayId)!.used.set(v.virtualIpAddress, {
      category: 'LOAD_BALANCER',
      ownerId: urn('loadBalancerVirtualService', v.id),
      ownerName: v.name,
    });
  const releaseVip = (v: VirtualService) => {
    const g = w.edgeGateways.get(v.gatewayId)!;
    if (
      ![...w.virtualServices.values()].some(
        (o) => o.id !== v.id && o.gatewayId === g.id && o.virtualIpAddress === v.virtualIpAddress,
      )
    )
      g.used.delete(v.virtualIpAddress);
  };

  r.add('POST', '/cloudapi/1.0.0/loadBalancer/virtualServices', async (ctx) => {
    const vs = vsFrom(ctx, await readJson<VsBody>(ctx, VS_SHAPE), randomUUID());
    return task(ctx, 'virtualServices', vs.id, vs.name, 'loadBalancerVirtualServiceCreate', () => {
      w.virtualServices.set(vs.id, vs);
      holdVip(vs);
    });
  });
  r.add('GET', '/cloudapi/1.0.0/loadBalancer/virtualServices/{id}', (ctx) =>
    json(200, vsJson(w.visible(w.virtualServices, urnParam(ctx, 'loadBalancerVirtualService'), org(ctx)))),
  );
  r.add('PUT', '/cloudapi/1.0.0/loadBalancer/virtualServices/{id}', async (ctx) => {
    const old = w.visible(w.virtualServices, urnParam(ctx, 'loadBalancerVirtualService'), org(ctx));
    const next = vsFrom(ctx, await readJson<VsBody>(ctx, VS_SHAPE), old.id);
    return task(ctx, 'virtualServices', old.id, next.name, 'loadBalancerVirtualServiceUpdate', () => {
      releaseVip(old);
      w.virtualServices.set(old.id, next);
      holdVip(next);
    });
  });
  r.add('DELETE', '/cloudapi/1.0.0/loadBalancer/virtualServices/{id}', (ctx) => {
    const v = w.visible(w.virtualServices, urnParam(ctx, 'loadBalancerVirtualService'), org(ctx));
    return task(ctx, 'virtualServices', v.id, v.name, 'loadBalancerVirtualServiceDelete', () => {
      releaseVip(v);
      w.virtualServices.delete(v.id);
    });
  });
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}/loadBalancer/virtualServiceSummaries', (ctx) => {
    const g = w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), org(ctx));
    return listReply(ctx, [...w.virtualServices.values()].filter((v) => v.gatewayId === g.id).map(vsJson));
  });
}
