/**
 * Mutation check: a deliberately broken provider, wired as addCapvcd wires the real one, must be
 * caught by capvcd's conformance scenario.
 */
import { type Client, type ReconcileContext, type Request, removeFinalizer } from '@capstan/runtime';
import { searchConformance } from '@capstan/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MACHINE_FINALIZER, VCDMachineReconciler, VCDMachineType } from '../src/index.js';
import { capvcdScenario } from './capvcd-scenario.js';

const reconcile = VCDMachineReconciler.prototype.reconcile;
afterEach(() => {
  VCDMachineReconciler.prototype.reconcile = reconcile;
});

describe("capvcd's scenario catches a broken provider", () => {
  it('one that lets a deleted VCDMachine go without deleting its VM leaks the VM', async () => {
    // The broken copy: on deletion, the finalizer goes at once; the VM is never deleted.
    VCDMachineReconciler.prototype.reconcile = async function (
      this: VCDMachineReconciler,
      request: Request,
      context: ReconcileContext,
    ) {
      const { client } = (this as unknown as { deps: { client: Client } }).deps;
      const machine = await client.get(VCDMachineType, request).catch(() => undefined);
      if (machine?.metadata.deletionTimestamp) {
        await removeFinalizer(client, VCDMachineType, machine, MACHINE_FINALIZER);
        return undefined;
      }
      return reconcile.call(this, request, context);
    };
    const report = await searchConformance(capvcdScenario(), { numRuns: 3, seed: 47 });
    expect(report.failure?.violation).toMatch(/one VM per VCDMachine/);
  }, 120_000);
});
