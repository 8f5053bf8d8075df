import type { ResourceType } from '../../api/types.js';
import type { Client } from '../../client/client.js';
import type { Clock } from '../../clock.js';
import type { Manager, ManagerOptions } from '../../manager/manager.js';
import type { FakeCluster, KindOptions } from '../fake-cluster.js';

/** What a user action and a world set-up get: the cluster and a client that bypasses every fault. */
export interface ConformanceUser {
  readonly cluster: FakeCluster;
  /** The run's virtual clock. */
  readonly clock: Clock;
  /** Speaks to the cluster directly: no faults, no stale cache. */
  readonly client: Client;
  /**
   * Kills the controller's process now, as its machine going down does (a node agent's reboot);
   * it starts again a second later, as after a crash. Nothing happens while it is down already.
   */
  killController(): void;
}

/** Something the user does, between which the harness perturbs the controller. */
export interface UserAction {
  /** Shown in failure reports, e.g. `create greeting hello`. */
  readonly name: string;
  run(user: ConformanceUser): Promise<unknown> | undefined;
}

/**
 * A property of the world: holds (true) or not (false, or a string saying what is wrong).
 * It reads the cluster synchronously (`cluster.objects`, `cluster.getObject`).
 */
export type WorldCheck = (cluster: FakeCluster) => boolean | string;

/**
 * A reconciler's conformance scenario: the controllers as the operator's `main` wires them, a
 * starting world, the user's actions, and what must hold. See {@link checkConformance}.
 */
export interface ConformanceScenario {
  /** Shown in reports. */
  readonly name: string;
  /** Every kind the controllers and the user touch (events.k8s.io Events are added). */
  readonly kinds: ReadonlyArray<ResourceType | readonly [ResourceType, KindOptions]>;
  /**
   * Wires the controllers into a manager: the same function the operator's `main` calls. `clock`
   * is the manager's (virtual) clock, for set-ups that take one.
   */
  setup(manager: Manager, context: { readonly clock: Clock }): void | Promise<void>;
  /** Manager options beyond the harness's own (transport, clock, logger, probes off, no election). */
  readonly manager?: Omit<ManagerOptions, 'transport' | 'clock' | 'kubeConfig' | 'leaderElection'>;
  /** Objects in the cluster before the controller first starts. */
  world?(user: ConformanceUser): Promise<unknown> | undefined;
  /**
   * The other parties of the world (node agents, kubelets, a cloud), played every 100 ms of
   * virtual time through the user's client: never perturbed. Keep their state in the cluster
   * (annotations, say), since a scenario object serves every run.
   */
  tick?(user: ConformanceUser): Promise<unknown> | undefined;
  /** The user's actions, in order. */
  readonly actions: readonly UserAction[];
  /** The world the actions ask for: must hold once the perturbations stop and the controller has run. */
  readonly converged: WorldCheck;
  /** Must hold after every write the controller makes and after every step of the run. */
  readonly invariants?: Readonly<Record<string, WorldCheck>>;
  /**
   * Deletes what the user made (e.g. the custom resources); afterwards every delete must complete
   * and every object the controller created must be gone (collected through its owner reference,
   * or deleted by the controller). Without it, the leak check does not run.
   */
  readonly teardown?: UserAction;
  /**
   * What must also hold once the teardown is done, beyond no object left: the other parties'
   * resources released (a cloud's VMs and load balancers, say). Read with the leak check.
   */
  readonly released?: WorldCheck;
  /** Virtual time the controller runs after each slot of perturbations (default 3 s). */
  readonly stepMs?: number;
  /** Virtual time allowed to converge once the perturbations stop (default 10 min). */
  readonly settleMs?: number;
}
