/** Shared pieces of the legacy API handlers. */
import type { VApp, Vm } from '../model/world.js';
import type { Ctx, Reply } from '../server/http.js';
import { xml } from '../server/http.js';
import type { Simulator } from '../simulator.js';
import type { Task, TaskSpec } from '../tasks/runner.js';
import { doc } from '../xml/build.js';
import { MT } from '../xml/ns.js';
import { path, urn } from '../xml/refs.js';
import { taskElement } from '../xml/task.js';
import type { RenderCtx } from '../xml/vm.js';

/** The caller's org id (handlers run only on authenticated routes). */
export const orgOf = (ctx: Ctx): string => ctx.session!.org.id;

/** What the XML renderers need for this request. */
export function renderCtx(sim: Simulator, ctx: Ctx): RenderCtx {
  return {
    world: sim.world,
    base: ctx.base,
    tasksOf: (ownerUrn) => sim.tasks.unfinished().filter((t) => t.owner.urn === ownerUrn),
  };
}

/** A Task document. */
export function taskXml(sim: Simulator, base: string, t: Task): string {
  const org = sim.world.orgs.get(t.orgId);
  return doc(taskElement(t, base, org?.name ?? '', t.orgId, true));
}

/** VCD's 202 answer to an async operation: the Task, and its href in `Location`. */
export function accepted(sim: Simulator, ctx: Ctx, t: Task): Reply {
  return xml(202, MT.task, taskXml(sim, ctx.base, t), { Location: `${ctx.base}${path.task(t.id)}` });
}

export const vmOwner = (vm: Vm) => ({
  type: MT.vm,
  name: vm.name,
  path: path.vm(vm.id),
  urn: urn('vm', vm.id),
});
export const vappOwner = (a: VApp) => ({
  type: MT.vApp,
  name: a.name,
  path: path.vapp(a.id),
  urn: urn('vapp', a.id),
});

/** What a task on an entity needs besides its caller: the org and user come from the request. */
export type EntityTaskSpec = Omit<TaskSpec, 'orgId' | 'userName'>;

/** Starts a task of the caller's org and user, owned by an entity and holding `locks` busy. */
export function entityTask(sim: Simulator, ctx: Ctx, spec: EntityTaskSpec): Task {
  return sim.tasks.start({ ...spec, orgId: orgOf(ctx), userName: ctx.session!.user.name });
}

/** Starts a task on a VM: it holds the VM and waits for no vApp-wide task. */
export function vmTask(
  sim: Simulator,
  ctx: Ctx,
  vm: Vm,
  operationName: string,
  operation: string,
  effect: () => void,
  onFailure?: () => void,
): Task {
  sim.tasks.assertFree([`vapp:${vm.vappId}`], urn('vapp', vm.vappId));
  return entityTask(sim, ctx, {
    operationName,
    operation,
    owner: vmOwner(vm),
    locks: [`vm:${vm.id}`],
    effect,
    ...(onFailure ? { onFailure } : {}),
  });
}

/** Starts a task on a vApp: it holds the vApp and every VM in it. */
export function vappTask(
  sim: Simulator,
  ctx: Ctx,
  vapp: VApp,
  operationName: string,
  operation: string,
  effect: () => void,
  onFailure?: () => void,
): Task {
  return entityTask(sim, ctx, {
    operationName,
    operation,
    owner: vappOwner(vapp),
    locks: [`vapp:${vapp.id}`, ...vapp.vmIds.map((id) => `vm:${id}`)],
    effect,
    ...(onFailure ? { onFailure } : {}),
  });
}

/** Parses `vm-<uuid>` / `vapp-<uuid>` path params (the route puts the uuid in `id`). */
export function idParam(ctx: Ctx): string {
  return (ctx.params.id ?? '').toLowerCase();
}

/** Starts a VM task and answers VCD's 202; the description reads "<verb> Virtual Machine name(id)". */
export const acceptVmTask = (
  sim: Simulator,
  ctx: Ctx,
  vm: Vm,
  operationName: string,
  verb: string,
  effect: () => void,
): Reply =>
  accepted(
    sim,
    ctx,
    vmTask(sim, ctx, vm, operationName, `${verb} Virtual Machine ${vm.name}(${vm.id})`, effect),
  );

/** Starts a vApp task and answers VCD's 202; the description reads "<verb> Virtual Application name(id)". */
export const acceptVappTask = (
  sim: Simulator,
  ctx: Ctx,
  vapp: VApp,
  operationName: string,
  verb: string,
  effect: () => void,
): Reply =>
  accepted(
    sim,
    ctx,
    vappTask(sim, ctx, vapp, operationName, `${verb} Virtual Application ${vapp.name}(${vapp.id})`, effect),
  );
