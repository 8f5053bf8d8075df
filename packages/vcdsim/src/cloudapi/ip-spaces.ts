/**
 * IP Spaces for tenants (`/cloudapi/1.0.0/ipSpaces`, VCD 10.4.1+): the IP Spaces assigned to the
 * caller's org, floating IP reservation (`POST …/{id}/allocate`: 202, the task's result content
 * holds the reserved addresses as JSON), the org's allocations (read, update, release), and the
 * unused floating IPs an edge gateway could use (`floatingIpSuggestions`).
 */
import { randomUUID } from 'node:crypto';
import { type IpAllocation, type IpSpace, pickFloatingIps, type ReserveRefusal } from '../model/ip-space.js';
import { errors } from '../server/errors.js';
import { type Ctx, empty, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { urn } from '../xml/refs.js';
import { type AsyncCollection, asyncWrite, callerOrg } from './async.js';
import { listReply, urnParam } from './envelope.js';
import { allocationJson, ipSpaceJson } from './ip-space-json.js';
import {
  ALLOCATE_SHAPE,
  ALLOCATION_SHAPE,
  type AllocateBody,
  type AllocationBody,
} from './ip-space-shapes.js';
import { readJson } from './validate.js';

const IP_SPACES: AsyncCollection = { kind: 'ipSpace', path: '/cloudapi/1.0.0/ipSpaces' };
const P = IP_SPACES.path;

const REFUSALS: Record<ReserveRefusal['kind'], (r: ReserveRefusal, s: IpSpace) => string> = {
  quota: (r, s) =>
    `The floating IP quota of IP Space "${s.name}" (${(r as { quota: number }).quota}) would be exceeded.`,
  exhausted: (_r, s) => `IP Space "${s.name}" has no free IP address left.`,
  valueOutside: (r, s) => `${(r as { value: string }).value} is not in a range of IP Space "${s.name}".`,
  valueTaken: (r, s) => `${(r as { value: string }).value} is already allocated in IP Space "${s.name}".`,
};

/** An IP Space the caller's org is assigned to; 403 otherwise (as for any entity not theirs). */
export function visibleIpSpace(sim: Simulator, ctx: Ctx): IpSpace {
  const s = sim.world.ipSpaces.get(urnParam(ctx, 'ipSpace'));
  if (!s?.orgIds.includes(callerOrg(ctx))) throw errors.forbidden();
  return s;
}

/** One of the caller's org's allocations in that IP Space; 403 otherwise. */
function visibleAllocation(sim: Simulator, ctx: Ctx): { space: IpSpace; a: IpAllocation } {
  const space = visibleIpSpace(sim, ctx);
  const a = space.allocations.get(urnParam(ctx, 'ipSpaceIpAllocation', 'allocationId'));
  if (!a || a.orgId !== ctx.session!.org.id) throw errors.forbidden();
  return { space, a };
}

/** `POST …/{id}/allocate`: checked now, reserved when the task ends (checked again then). */
async function allocateIps(sim: Simulator, ctx: Ctx) {
  const space = visibleIpSpace(sim, ctx);
  const b = await readJson<AllocateBody>(ctx, ALLOCATE_SHAPE);
  if (b.type !== 'FLOATING_IP')
    throw errors.badRequest(
      `Allocation type "${b.type}" is not supported here: only FLOATING_IP is modelled.`,
    );
  const quantity = b.quantity ?? 1;
  if (!Number.isInteger(quantity) || quantity < 1)
    throw errors.badRequest('quantity must be a positive integer.');
  const org = ctx.session!.org.id;
  const request = { quantity, ...(b.value ? { value: b.value } : {}) };
  const reserve = () => {
    const pick = pickFloatingIps(space, org, request);
    if ('refused' in pick) throw errors.badRequest(REFUSALS[pick.refused.kind](pick.refused, space));
    return pick.values;
  };
  reserve();
  return asyncWrite(sim, ctx, IP_SPACES, space, 'ipSpaceIpAllocation', () => {
    const results = reserve().map((value) => {
      const id = randomUUID();
      space.allocations.set(id, {
        id,
        orgId: org,
        type: 'FLOATING_IP',
        value,
        description: '',
        usageState: 'UNUSED',
        allocationDate: sim.clock.now(),
      });
      return { id: urn('ipSpaceIpAllocation', id), value, suggestedValue: '' };
    });
    return JSON.stringify(results);
  });
}

/** The unused floating IPs of the caller's org in each IP Space of the gateway `filter` names. */
function floatingIpSuggestions(sim: Simulator, ctx: Ctx) {
  const filter = ctx.query.get('filter') ?? '';
  const gid = /gatewayId==urn:vcloud:gateway:([0-9a-f-]{36})/i.exec(filter)?.[1]?.toLowerCase();
  if (!gid) throw errors.badRequest('The filter must name a gatewayId (filter=gatewayId==<urn>).');
  const org = callerOrg(ctx);
  const g = sim.world.visible(sim.world.edgeGateways, gid, org);
  const rows = (g.ipSpaceIds ?? []).flatMap((id) => {
    const s = sim.world.ipSpaces.get(id);
    if (!s?.orgIds.includes(org)) return [];
    const unused = [...s.allocations.values()].filter((a) => a.orgId === org && a.usageState === 'UNUSED');
    return [
      { ipSpaceRef: { name: s.name, id: urn('ipSpace', s.id) }, unusedValues: unused.map((a) => a.value) },
    ];
  });
  // The filter selects the gateway; it is not a filter over the rows.
  const rest = new URLSearchParams(ctx.query);
  rest.delete('filter');
  return listReply({ ...ctx, query: rest }, rows);
}

/** Registers the IP Space routes (fixed paths before `{id}`, which would match them). */
export function ipSpaceRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const mine = (ctx: Ctx) => {
    const org = callerOrg(ctx);
    return [...w.ipSpaces.values()].filter((s) => s.orgIds.includes(org)).map((s) => ipSpaceJson(w, s));
  };
  r.add('GET', `${P}/summaries`, (ctx) => listReply(ctx, mine(ctx)));
  r.add('GET', `${P}/floatingIpSuggestions`, (ctx) => floatingIpSuggestions(sim, ctx));
  r.add('GET', P, (ctx) => listReply(ctx, mine(ctx)));
  r.add('GET', `${P}/{id}`, (ctx) => json(200, ipSpaceJson(w, visibleIpSpace(sim, ctx))));
  r.add('POST', `${P}/{id}/allocate`, (ctx) => allocateIps(sim, ctx));
  r.add('GET', `${P}/{id}/allocations`, (ctx) => {
    const space = visibleIpSpace(sim, ctx);
    const org = ctx.session!.org.id;
    const rows = [...space.allocations.values()].filter((a) => a.orgId === org);
    return listReply(
      ctx,
      rows.map((a) => allocationJson(w, a)),
    );
  });
  r.add('GET', `${P}/{id}/allocations/{allocationId}`, (ctx) =>
    json(200, allocationJson(w, visibleAllocation(sim, ctx).a)),
  );
  r.add('PUT', `${P}/{id}/allocations/{allocationId}`, async (ctx) => {
    const { a } = visibleAllocation(sim, ctx);
    const b = await readJson<AllocationBody>(ctx, ALLOCATION_SHAPE);
    if (b.value && b.value !== a.value) throw errors.badRequest('The value of an allocation cannot change.');
    if (b.usageState && b.usageState !== a.usageState) {
      if (a.usageState === 'USED' || !['UNUSED', 'USED_MANUAL'].includes(b.usageState))
        throw errors.badRequest(`usageState cannot go from ${a.usageState} to ${b.usageState}.`);
      a.usageState = b.usageState as 'UNUSED' | 'USED_MANUAL';
    }
    if (typeof b.description === 'string') a.description = b.description;
    return json(200, allocationJson(w, a));
  });
  r.add('DELETE', `${P}/{id}/allocations/{allocationId}`, (ctx) => {
    const { space, a } = visibleAllocation(sim, ctx);
    if (a.usageState === 'USED')
      throw errors.badRequest(
        `${a.value} is in use by ${a.usedBy?.name ?? 'a network service'} and cannot be released.`,
      );
    space.allocations.delete(a.id);
    return empty(204);
  });
}
