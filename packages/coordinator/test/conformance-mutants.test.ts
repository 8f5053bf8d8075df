/**
 * Mutation check: a deliberately broken coordinator, wired as addCoordinator wires the real one,
 * must be caught by the conformance scenario.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, type Clock, type KubeObject, type Manager, type ResourceType } from '@capstan/runtime';
import {
  type ClientListOptions,
  Lease,
  type ListResult,
  Node,
  type ObjectKey,
  type PatchOptions,
  type PatchType,
  type ReadOptions,
  type WriteOptions,
} from '@capstan/runtime/client';
import { searchConformance } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { CLUSTER_KEY, CoordinatorReconciler, RebootGroupType } from '../src/index.js';
import { BUDGET, coordinatorScenario, GRANT_TIMEOUT_MS } from './coordinator-scenario.js';
import { NAMESPACE } from './sim-kit.js';

/**
 * A client without the guards against a stale view: `direct` reads come from the cache, its own
 * writes are not overlaid on it (`readYourWrites: false`), and writes drop their resourceVersion
 * precondition (so they land whatever they were planned from).
 */
class CarelessClient extends Client {
  override get<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    _options?: ReadOptions,
  ): Promise<T> {
    return super.get(type, key);
  }

  override list<T extends KubeObject>(
    type: ResourceType<T>,
    options: ClientListOptions = {},
  ): Promise<ListResult<T>> {
    const { direct: _ignored, ...rest } = options;
    return super.list(type, rest);
  }

  override patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options?: PatchOptions,
  ): Promise<T> {
    const b = body as { metadata?: { resourceVersion?: string } };
    if (b?.metadata?.resourceVersion === undefined) return super.patch(type, key, patchType, body, options);
    const { resourceVersion: _dropped, ...metadata } = b.metadata;
    return super.patch(type, key, patchType, { ...b, metadata }, options);
  }

  override update<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options?: WriteOptions,
  ): Promise<T> {
    const { resourceVersion: _dropped, ...metadata } = object.metadata;
    return super.update(type, { ...object, metadata }, options);
  }
}

describe('the coordinator scenario catches a broken coordinator', () => {
  it('reads its cache where it must read fresh, and writes unconditionally: over budget', async () => {
    const mutant = {
      ...coordinatorScenario,
      name: 'reboot coordinator (careless reads and writes)',
      setup: (manager: Manager, { clock }: { clock: Clock }) => {
        const client = new CarelessClient(manager.transport, {
          cache: manager.cache,
          fieldManager: 'capstan-coordinator',
          readYourWrites: false,
        });
        const reconciler = new CoordinatorReconciler(
          {
            namespace: NAMESPACE,
            protocol: capstanProtocol,
            defaultGroup: { maxUnavailable: BUDGET },
            defaultGrantTimeoutMs: GRANT_TIMEOUT_MS,
          },
          { client, clock },
        );
        const toCluster = () => [{ name: CLUSTER_KEY }];
        manager
          .controllerBuilder()
          .named('reboot-coordinator')
          .watches(RebootGroupType, toCluster)
          .watches(Node, toCluster)
          .watches(Lease, toCluster)
          .build(reconciler);
      },
    };
    const report = await searchConformance(mutant, { numRuns: 60, seed: 47 });
    expect(report.failure?.violation).toMatch(/never more nodes granted than the budget/);
    // What it takes: a cache left behind, across a restart (a fresh process lists the old snapshot).
    const kinds = report.failure?.schedule.slots.flat().map((p) => p.kind);
    expect(kinds).toContain('stale');
  }, 180_000);
});
