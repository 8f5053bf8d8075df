/**
 * How many status writes a VCDMachine costs from nothing to provisioned: each one sets off a
 * Cluster API Machine reconcile and its own Machine status patch, the API server's load at scale
 * (issue 48). A machine writes when it waits for bootstrap data, when each of its VM's tasks is
 * recorded, when the last one is cleared, and once provisioned; a poll of a running task, a wait
 * on a sibling's task, and the reconcile our own providerID patch sets off write nothing more.
 */
import { VCDMachineType } from '@capstan/capvcd';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeProvider, provisioned, runUntil, startFakeProvider } from './fake-provider.js';

let provider: FakeProvider | undefined;

afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

describe('VCDMachine status writes', () => {
  it('are a handful a machine, and none once it is provisioned', async () => {
    provider = await startFakeProvider(4);
    const { user, statusPatches } = provider;
    await runUntil(user, () => provisioned(user), 'five machines provisioned');
    const atProvisioned = new Map(statusPatches);
    // The reconciles that follow (our providerID patch, Cluster API's) find nothing to write.
    await user.clock.advanceAsync(10_000);
    expect(statusPatches).toEqual(atProvisioned);
    const counts = user.cluster
      .objects(VCDMachineType)
      .map((m) => statusPatches.get(m.metadata.name ?? '') ?? 0);
    console.info(`status writes by machine: ${counts.join(', ')}`);
    // A wait (for the Cluster, the vApp), CreateVM, ConfigureVM and PowerOn recorded, each cleared
    // (seen ended on its task, here, where vcdsim is quicker than the look), provisioned.
    for (const n of counts) expect(n).toBeLessThanOrEqual(8);
  }, 60_000);
});
