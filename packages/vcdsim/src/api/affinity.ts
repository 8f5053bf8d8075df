/**
 * VM affinity rules of a VDC (`/api/vdc/{id}/vmAffinityRules`, `/api/vmAffinityRule/{id}`): which
 * VMs should share hosts (Affinity) or be kept apart (Anti-Affinity). Writes answer 202 with a
 * Task; a rule names at least two distinct VMs of its VDC, each once.
 */
import { randomUUID } from 'node:crypto';
import type { VmAffinityRule } from '../model/affinity.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { doc, el, text } from '../xml/build.js';
import { MT, ROOT_NS } from '../xml/ns.js';
import { child, childBool, childrenNamed, childText, parseBody, type XNode } from '../xml/parse.js';
import { idFrom, link, path, ref, urn } from '../xml/refs.js';
import { VM_AFFINITY_RULE } from '../xml/specs.js';
import { accepted, entityTask, orgOf } from './common.js';

const rulePath = (id: string) => `/api/vmAffinityRule/${id}`;

/** A rule as VCD renders it (`root`: with the namespace declarations, as its own document). */
function ruleElement(sim: Simulator, base: string, r: VmAffinityRule, root: boolean): string {
  return el(
    'VmAffinityRule',
    {
      ...(root ? ROOT_NS : {}),
      href: `${base}${rulePath(r.id)}`,
      id: urn('vmaffinityrule', r.id),
      type: MT.vmAffinityRule,
    },
    link(base, 'edit', MT.vmAffinityRule, rulePath(r.id)),
    link(base, 'remove', undefined, rulePath(r.id)),
    link(base, 'up', MT.vdc, path.vdc(r.vdcId)),
    text('Name', r.name),
    text('IsEnabled', r.enabled),
    text('IsMandatory', r.mandatory),
    text('Polarity', r.polarity),
    el(
      'VmReferences',
      undefined,
      ...r.vmIds.map((id) =>
        ref('VmReference', base, MT.vm, path.vm(id), sim.world.vms.get(id)?.name, urn('vm', id)),
      ),
    ),
  );
}

/** The rule a body describes, checked as VCD does: a polarity, a name, two or more distinct VMs of the VDC. */
function ruleFrom(sim: Simulator, body: XNode, vdcId: string, orgId: string, id: string): VmAffinityRule {
  const name = childText(body, 'Name')?.trim();
  if (!name) throw errors.badRequest('A VM affinity rule needs a Name.');
  const polarity = childText(body, 'Polarity');
  if (polarity !== 'Affinity' && polarity !== 'Anti-Affinity')
    throw errors.badRequest(`Polarity "${polarity ?? ''}" is not Affinity or Anti-Affinity.`);
  const vmIds = childrenNamed(child(body, 'VmReferences'), 'VmReference').map((v) => {
    const vmId = idFrom(v.attrs.href, '/vApp/vm-') ?? idFrom(v.attrs.id, 'urn:vcloud:vm:');
    const vm = sim.world.visibleVm(vmId ?? '', orgId);
    if (sim.world.vapps.get(vm.vappId)?.vdcId !== vdcId)
      throw errors.badRequest(`VM "${vm.name}" is not in the rule's VDC.`);
    return vm.id;
  });
  if (new Set(vmIds).size !== vmIds.length) throw errors.badRequest('A VM is named more than once.');
  if (vmIds.length < 2) throw errors.badRequest('A VM affinity rule needs at least two VMs.');
  return {
    id,
    name,
    vdcId,
    orgId,
    enabled: childBool(body, 'IsEnabled') ?? true,
    mandatory: childBool(body, 'IsMandatory') ?? false,
    polarity,
    vmIds,
  };
}

/** A rule write as a task owned by the rule. */
function ruleTask(sim: Simulator, ctx: Ctx, r: VmAffinityRule, operationName: string, effect: () => void) {
  const t = entityTask(sim, ctx, {
    operationName,
    operation: `${operationName} ${r.name}`,
    owner: { type: MT.vmAffinityRule, name: r.name, path: rulePath(r.id), urn: urn('vmaffinityrule', r.id) },
    locks: [`vmAffinityRule:${r.id}`],
    effect,
  });
  return accepted(sim, ctx, t);
}

/** Registers the affinity rule routes. */
export function affinityRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const visibleRule = (ctx: Ctx) => w.visible(w.affinityRules, ctx.params.id ?? '', orgOf(ctx));
  r.add('GET', '/api/vdc/{id}/vmAffinityRules', (ctx) => {
    const vdc = w.visible(w.vdcs, ctx.params.id ?? '', orgOf(ctx));
    const rules = [...w.affinityRules.values()].filter((x) => x.vdcId === vdc.id);
    const body = el(
      'VmAffinityRules',
      { ...ROOT_NS, href: `${ctx.base}${path.vdc(vdc.id)}/vmAffinityRules`, type: MT.vmAffinityRules },
      link(ctx.base, 'up', MT.vdc, path.vdc(vdc.id)),
      ...rules.map((x) => ruleElement(sim, ctx.base, x, false)),
    );
    return xml(200, MT.vmAffinityRules, doc(body));
  });
  r.add('POST', '/api/vdc/{id}/vmAffinityRules', async (ctx) => {
    const vdc = w.visible(w.vdcs, ctx.params.id ?? '', orgOf(ctx));
    requireContentType(ctx, MT.vmAffinityRule);
    const body = parseBody(await ctx.body(), 'VmAffinityRule', VM_AFFINITY_RULE);
    const rule = ruleFrom(sim, body, vdc.id, vdc.orgId, randomUUID());
    return ruleTask(sim, ctx, rule, 'vdcCreateVmAffinityRule', () => void w.affinityRules.set(rule.id, rule));
  });
  r.add('GET', '/api/vmAffinityRule/{id}', (ctx) =>
    xml(200, MT.vmAffinityRule, doc(ruleElement(sim, ctx.base, visibleRule(ctx), true))),
  );
  r.add('PUT', '/api/vmAffinityRule/{id}', async (ctx) => {
    const old = visibleRule(ctx);
    // The SDK's Update sends no Content-Type; the body is checked all the same.
    const body = parseBody(await ctx.body(), 'VmAffinityRule', VM_AFFINITY_RULE);
    const next = ruleFrom(sim, body, old.vdcId, old.orgId, old.id);
    return ruleTask(sim, ctx, next, 'vdcUpdateVmAffinityRule', () => void w.affinityRules.set(old.id, next));
  });
  r.add('DELETE', '/api/vmAffinityRule/{id}', (ctx) => {
    const rule = visibleRule(ctx);
    return ruleTask(sim, ctx, rule, 'vdcDeleteVmAffinityRule', () => void w.affinityRules.delete(rule.id));
  });
}
