/**
 * NSX-T ALB pools: create/update/delete answer 202 with a `Location` task (the change lands when
 * it finishes); GETs and the per-gateway summaries report health derived from the VMs behind the
 * members.
 */
import { randomUUID } from 'node:crypto';
import { ipToInt } from '../model/ippool.js';
import type { LbPool } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { poolJson } from './alb-json.js';
import { type AsyncCollection, asyncWrite, callerOrg, gatewayFromUrn } from './async.js';
import { listReply, urnParam } from './envelope.js';
import { POOL_SHAPE, type PoolBody } from './shapes.js';
import { readJson } from './validate.js';

const POOLS: AsyncCollection = {
  kind: 'loadBalancerPool',
  path: '/cloudapi/1.0.0/loadBalancer/pools',
  lock: 'pools',
};

/** The pool a create or update body describes, checked against the gateway's other pools. */
function poolFrom(sim: Simulator, ctx: Ctx, b: PoolBody, id: string): LbPool {
  const w = sim.world;
  const g = gatewayFromUrn(sim, ctx, b.gatewayRef.id);
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
}

/** Registers the pool routes and the per-gateway pool summaries. */
export function poolRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const visiblePool = (ctx: Ctx) => w.visible(w.pools, urnParam(ctx, 'loadBalancerPool'), callerOrg(ctx));
  r.add('POST', POOLS.path, async (ctx) => {
    const pool = poolFrom(sim, ctx, await readJson<PoolBody>(ctx, POOL_SHAPE), randomUUID());
    return asyncWrite(sim, ctx, POOLS, pool, 'loadBalancerPoolCreate', () => void w.pools.set(pool.id, pool));
  });
  r.add('GET', `${POOLS.path}/{id}`, (ctx) => json(200, poolJson(w, visiblePool(ctx))));
  r.add('PUT', `${POOLS.path}/{id}`, async (ctx) => {
    const old = visiblePool(ctx);
    const next = poolFrom(sim, ctx, await readJson<PoolBody>(ctx, POOL_SHAPE), old.id);
    if (next.gatewayId !== old.gatewayId)
      throw errors.badRequest('A pool cannot move to another edge gateway.');
    return asyncWrite(sim, ctx, POOLS, next, 'loadBalancerPoolUpdate', () => void w.pools.set(old.id, next));
  });
  r.add('DELETE', `${POOLS.path}/{id}`, (ctx) => {
    const p = visiblePool(ctx);
    const user = [...w.virtualServices.values()].find((v) => v.poolId === p.id);
    if (user) throw errors.badRequest(`Pool "${p.name}" is used by virtual service "${user.name}".`);
    return asyncWrite(sim, ctx, POOLS, p, 'loadBalancerPoolDelete', () => void w.pools.delete(p.id));
  });
  r.add('GET', `${POOLS.path}/{id}/members`, (ctx) => listReply(ctx, poolJson(w, visiblePool(ctx)).members));
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}/loadBalancer/poolSummaries', (ctx) => {
    const g = w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), callerOrg(ctx));
    return listReply(
      ctx,
      [...w.pools.values()]
        .filter((p) => p.gatewayId === g.id)
        .map((p) => {
          const { members: _m, ...summary } = poolJson(w, p);
          return summary;
        }),
    );
  });
}
