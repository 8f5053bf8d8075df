/** The simulator's parts wired together: world, clock, auth, tasks, faults, request log, guest hooks. */
import type { Clock } from '@capstan/runtime';
import { Auth } from './auth/sessions.js';
import { Faults } from './faults/faults.js';
import { RequestLog } from './inspect/log.js';
import type { World } from './model/world.js';
import { TaskRunner } from './tasks/runner.js';

/** What the `onBoot` hook learns about a VM that has just booted. */
export interface BootedVm {
  /** Bare UUID. */
  id: string;
  /** `urn:vcloud:vm:<uuid>`, as in a CAPI providerID. */
  urn: string;
  name: string;
  vappName: string;
  orgName: string;
  /** The primary NIC's address (undefined if it has none). */
  ipAddress: string | undefined;
  /** Every NIC's address by index. */
  ipAddresses: Record<number, string>;
  /** The VM's ExtraConfig keys (guestinfo.* and the rest). */
  extraConfig: Record<string, string>;
  /** ProductSection properties (the OVF environment). */
  ovfProperties: Record<string, string>;
}

/**
 * Called when a VM has booted, with its guestinfo (the `guestinfo.*` ExtraConfig keys, e.g.
 * `guestinfo.userdata` + `guestinfo.userdata.encoding`, `guestinfo.metadata`,
 * `guestinfo.ignition.config.data`). The hook acts as the guest; it may answer
 * `{ serving: false }` to say the guest does not serve its ports (load balancer health).
 */
export type BootHook = (
  vm: BootedVm,
  guestinfo: Record<string, string>,
) => undefined | { serving?: boolean } | Promise<undefined | { serving?: boolean }>;

/** Options that shape the simulator's behaviour (not its contents, which come from the seed). */
export interface Behaviour {
  /** Default task latency in ms (on the simulator clock). */
  taskLatencyMs: number;
  /** Latency per task operation name (e.g. `vdcRecomposeVapp`). */
  operationLatencyMs: Record<string, number>;
  /** Time from a finished power-on to the guest's boot (IP shown, tools running, hook called). */
  bootDelayMs: number;
  /** Whether a booted guest serves its ports unless the hook says otherwise. */
  servingOnBoot: boolean;
}

/** The live simulator state handlers and the inspection API work on. */
export class Simulator {
  readonly faults = new Faults();
  readonly log = new RequestLog();
  readonly auth: Auth;
  readonly tasks: TaskRunner;
  readonly bootHooks: BootHook[] = [];
  /** Errors thrown by boot hooks or by handlers (answered 500); kept for tests, never fatal. */
  readonly failures: { where: string; error: unknown }[] = [];
  /** The routes served, `METHOD /pattern` (set once they are registered). */
  routes: string[] = [];

  constructor(
    readonly world: World,
    readonly clock: Clock,
    readonly behaviour: Behaviour,
    tokenLifetimeMs: number,
  ) {
    this.auth = new Auth(world, clock, tokenLifetimeMs);
    this.tasks = new TaskRunner(clock, this.faults, {
      defaultMs: behaviour.taskLatencyMs,
      perOperation: behaviour.operationLatencyMs,
    });
    this.faults.expireTokens = () => this.auth.expireAll();
  }
}
