/**
 * Read-only CloudAPI networking and policies: vdcComputePolicies (1.0.0 and 2.0.0), orgVdcNetworks,
 * edgeGateways (+ usedIpAddresses) and ALB service engine group assignments.
 */
import { errors } from '../server/errors.js';
import { type Ctx, json } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { checkTenantContext, listReply, urnParam } from './envelope.js';
import {
  allocatedIpsJson,
  computePolicyJson,
  edgeGatewayJson,
  orgVdcNetworkJson,
  segAssignmentJson,
  usedIpJson,
} from './json.js';

/** Registers the networking and compute policy routes. */
export function networkingRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const org = (ctx: Ctx) => {
    checkTenantContext(ctx);
    return ctx.session!.org.id;
  };
  for (const [v, v2] of [
    ['1.0.0', false],
    ['2.0.0', true],
  ] as const) {
    r.add('GET', `/cloudapi/${v}/vdcComputePolicies`, (ctx) =>
      listReply(
        ctx,
        w.orgComputePolicies(org(ctx)).map((p) => computePolicyJson(p, v2)),
      ),
    );
    r.add('GET', `/cloudapi/${v}/vdcComputePolicies/{id}`, (ctx) => {
      const id = urnParam(ctx, 'vdcComputePolicy');
      const p = w.orgComputePolicies(org(ctx)).find((x) => x.id === id);
      if (!p) throw errors.forbidden();
      return json(200, computePolicyJson(p, v2));
    });
  }
  r.add('GET', '/cloudapi/1.0.0/orgVdcNetworks', (ctx) => {
    const o = org(ctx);
    return listReply(
      ctx,
      [...w.networks.values()].filter((n) => n.orgId === o).map((n) => orgVdcNetworkJson(w, n)),
    );
  });
  r.add('GET', '/cloudapi/1.0.0/orgVdcNetworks/{id}', (ctx) =>
    json(200, orgVdcNetworkJson(w, w.visible(w.networks, urnParam(ctx, 'network'), org(ctx)))),
  );
  r.add('GET', '/cloudapi/1.0.0/orgVdcNetworks/{id}/allocatedIpAddresses', (ctx) =>
    listReply(ctx, allocatedIpsJson(w, w.visible(w.networks, urnParam(ctx, 'network'), org(ctx)))),
  );
  r.add('GET', '/cloudapi/1.0.0/edgeGateways', (ctx) => {
    const o = org(ctx);
    return listReply(
      ctx,
      [...w.edgeGateways.values()].filter((g) => g.orgId === o).map((g) => edgeGatewayJson(w, g)),
    );
  });
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}', (ctx) =>
    json(200, edgeGatewayJson(w, w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), org(ctx)))),
  );
  r.add('GET', '/cloudapi/1.0.0/edgeGateways/{id}/usedIpAddresses', (ctx) =>
    listReply(ctx, usedIpJson(w.visible(w.edgeGateways, urnParam(ctx, 'gateway'), org(ctx)))),
  );
  r.add('GET', '/cloudapi/1.0.0/loadBalancer/serviceEngineGroups/assignments', (ctx) => {
    const o = org(ctx);
    return listReply(
      ctx,
      [...w.segAssignments.values()]
        .filter((a) => w.edgeGateways.get(a.gatewayId)?.orgId === o)
        .map((a) => segAssignmentJson(w, a)),
    );
  });
}
