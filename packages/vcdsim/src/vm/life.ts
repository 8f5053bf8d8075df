/**
 * A VM's life: power-on reserves its pool addresses and, after the boot delay, the guest "boots":
 * its NICs show their addresses, VMware Tools report running and the boot hooks run with the VM's
 * guestinfo. Power-off, undeploy and delete give every address back.
 */
import type { TimerHandle } from '@capstan/runtime';
import { type Vm, VmStatus } from '../model/world.js';
import { errors } from '../server/errors.js';
import type { BootedVm, Simulator } from '../simulator.js';
import { leaseDhcp, releaseAddresses, reserveAddresses } from './network.js';

const bootTimers = new WeakMap<Vm, TimerHandle>();

/** Drops the VM's pending boot, if any. */
function cancelBoot(sim: Simulator, vm: Vm): void {
  const pending = bootTimers.get(vm);
  if (pending) sim.clock.clearTimeout(pending);
  bootTimers.delete(vm);
}

/** Boots the guest after the boot delay, replacing a boot still pending. */
function rearmBoot(sim: Simulator, vm: Vm): void {
  cancelBoot(sim, vm);
  bootTimers.set(
    vm,
    sim.clock.setTimeout(() => boot(sim, vm), sim.behaviour.bootDelayMs),
  );
}

/** The effect of a finished power-on task. */
export function powerOn(sim: Simulator, vm: Vm): void {
  if (vm.status === VmStatus.POWERED_ON) return;
  reserveAddresses(sim.world, sim.faults, vm);
  vm.status = VmStatus.POWERED_ON;
  vm.deployed = true;
  const vapp = sim.world.vapps.get(vm.vappId);
  if (vapp) {
    vapp.deployed = true;
    vapp.status = vappStatus(sim, vapp.vmIds);
  }
  rearmBoot(sim, vm);
}

function boot(sim: Simulator, vm: Vm): void {
  bootTimers.delete(vm);
  if (vm.status !== VmStatus.POWERED_ON || !sim.world.vms.has(vm.id)) return;
  for (const nic of vm.nics) if (nic.reservedIp) nic.ipAddress = nic.reservedIp;
  leaseDhcp(sim.world, vm);
  vm.toolsRunning = true;
  vm.serving = sim.behaviour.servingOnBoot;
  vm.needsCustomization = false;
  const extraConfig = Object.fromEntries([...vm.extraConfig].map(([k, v]) => [k, v.value]));
  const guestinfo = Object.fromEntries(
    Object.entries(extraConfig).filter(([k]) => k.startsWith('guestinfo.')),
  );
  const vapp = sim.world.vapps.get(vm.vappId);
  const view: BootedVm = {
    id: vm.id,
    urn: `urn:vcloud:vm:${vm.id}`,
    name: vm.name,
    vappName: vapp?.name ?? '',
    orgName: (vapp && sim.world.orgs.get(vapp.orgId)?.name) ?? '',
    ipAddress: vm.nics.find((n) => n.index === vm.primaryNicIndex)?.ipAddress,
    ipAddresses: Object.fromEntries(vm.nics.filter((n) => n.ipAddress).map((n) => [n.index, n.ipAddress!])),
    extraConfig,
    ovfProperties: Object.fromEntries(
      vm.productSections.flatMap((s) => s.properties.map((p) => [p.key, p.value])),
    ),
  };
  for (const hook of sim.bootHooks) {
    const record = (error: unknown) => sim.failures.push({ where: `onBoot(${vm.name})`, error });
    try {
      Promise.resolve(hook(view, guestinfo)).then((r) => {
        if (r && typeof r.serving === 'boolean' && vm.status === VmStatus.POWERED_ON) vm.serving = r.serving;
      }, record);
    } catch (e) {
      record(e);
    }
  }
}

/** The effect of a finished reboot: the guest goes down and boots again after the boot delay. */
export function reboot(sim: Simulator, vm: Vm): void {
  vm.toolsRunning = false;
  vm.serving = false;
  for (const nic of vm.nics) nic.ipAddress = undefined;
  rearmBoot(sim, vm);
}

/** The effect of a finished power-off (or the power-off part of undeploy). */
export function powerOff(sim: Simulator, vm: Vm, undeploy: boolean): void {
  cancelBoot(sim, vm);
  vm.status = VmStatus.POWERED_OFF;
  vm.toolsRunning = false;
  vm.serving = false;
  if (undeploy) vm.deployed = false;
  releaseAddresses(sim.world, vm);
  const vapp = sim.world.vapps.get(vm.vappId);
  if (vapp) {
    vapp.status = vappStatus(sim, vapp.vmIds);
    if (undeploy && vapp.vmIds.every((id) => !sim.world.vms.get(id)?.deployed)) vapp.deployed = false;
  }
}

/**
 * The effect of a finished guest shutdown: the guest powers the VM off (it stays deployed, as after
 * a power-off), unless it is hung. Without VMware Tools running the guest cannot be asked: the task
 * fails, as VCD's does.
 */
export function shutdownGuest(sim: Simulator, vm: Vm): void {
  if (!vm.toolsRunning)
    throw errors.invalidState(
      `Cannot shut down the guest of VM "${vm.name}": VMware Tools are not running in it.`,
    );
  if (!vm.guestIgnoresShutdown) powerOff(sim, vm, false);
}

/** Removes a VM from its vApp and the world, giving its addresses back (its named disks stay). */
export function deleteVm(sim: Simulator, vm: Vm): void {
  powerOff(sim, vm, true);
  // Independent disks outlive the VM: detached, kept.
  for (const disk of sim.world.disksOf(vm.id)) disk.attachedVmId = undefined;
  sim.world.vms.delete(vm.id);
  const vapp = sim.world.vapps.get(vm.vappId);
  if (vapp) {
    vapp.vmIds = vapp.vmIds.filter((id) => id !== vm.id);
    vapp.status = vappStatus(sim, vapp.vmIds);
  }
}

/** A vApp's status from its VMs': all on → 4, all off → 8, a mix → 10 (MIXED), none → 8. */
export function vappStatus(sim: Simulator, vmIds: string[]): number {
  const states = new Set(vmIds.map((id) => sim.world.vms.get(id)?.status).filter((s) => s !== undefined));
  if (states.size === 0) return VmStatus.POWERED_OFF;
  if (states.size === 1) return [...states][0]!;
  return 10;
}
