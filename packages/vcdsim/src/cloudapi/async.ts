/**
 * CloudAPI's asynchronous writes and tenant scoping: a write answers 202 with an empty body and
 * the task in `Location` (the change lands when the task ends); reads see the caller's org only.
 */
import type { EdgeGateway } from '../model/world.js';
import { type Ctx, empty, type Reply } from '../server/http.js';
import type { Simulator } from '../simulator.js';
import { path, urn } from '../xml/refs.js';
import { checkTenantContext } from './envelope.js';

/** The caller's org id, after checking the tenant-context header names it. */
export function callerOrg(ctx: Ctx): string {
  checkTenantContext(ctx);
  return ctx.session!.org.id;
}

/** An edge gateway of the caller's org from its URN (as in a `gatewayRef`); 403 otherwise. */
export function gatewayFromUrn(sim: Simulator, ctx: Ctx, id: string | undefined): EdgeGateway {
  const gid = /^urn:vcloud:gateway:([0-9a-f-]{36})$/i.exec(id ?? '')?.[1]?.toLowerCase();
  return sim.world.visible(sim.world.edgeGateways, gid ?? '', callerOrg(ctx));
}

/** A CloudAPI collection whose writes are tasks. */
export interface AsyncCollection {
  /** The URN kind of its entities (`loadBalancerPool`). */
  kind: string;
  /** Its path (`/cloudapi/1.0.0/loadBalancer/pools`). */
  path: string;
  /** The prefix of the busy-entity key a write holds (`pools` makes `pools:<id>`); none: no lock. */
  lock?: string;
}

/**
 * Starts a write's task on entity `e` of the collection and answers 202 with it in `Location`; a
 * string the effect returns is the task's result content.
 */
export function asyncWrite(
  sim: Simulator,
  ctx: Ctx,
  c: AsyncCollection,
  e: { id: string; name: string },
  operationName: string,
  effect: () => unknown,
): Reply {
  const t = sim.tasks.start({
    operationName,
    operation: `${operationName} ${e.name}`,
    owner: {
      type: 'application/json',
      name: e.name,
      path: `${c.path}/${urn(c.kind, e.id)}`,
      urn: urn(c.kind, e.id),
    },
    orgId: ctx.session!.org.id,
    userName: ctx.session!.user.name,
    locks: c.lock ? [`${c.lock}:${e.id}`] : [],
    effect,
  });
  return empty(202, { Location: `${ctx.base}${path.task(t.id)}` });
}
