/**
 * A sibling's read of the cluster's vApp standing for a machine's own: the rule
 * ({@link mayShareRead}) by properties, one of them against the decision itself (what a shared read
 * could hold stale, other machines' VMs, never changes a machine's step); the record
 * ({@link VAppReads}) on a manual clock over a read that counts GETs.
 */
import { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideMachine, type ObservedVM } from '../src/decide/machine.js';
import { mayShareRead } from '../src/decide/vapp-read.js';
import { VAppReads } from '../src/machine/vapp-reads.js';
import type { VcdClient } from '../src/vcd/client.js';
import type { VAppRecord } from '../src/vcd/vapp.js';
import { intent, vmOf } from './machine-fixtures.js';

const others = fc.array(vmOf(fc.constantFrom('m2', 'm3', 'm4')), { maxLength: 4 });

describe('mayShareRead', () => {
  it('property: only a young read begun after what changed the VM, holding it, for a machine not being deleted', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.record({
          deleting: fc.boolean(),
          freshAfter: fc.integer({ min: 0, max: 100_000 }),
          vmInRead: fc.boolean(),
          now: fc.integer({ min: 0, max: 100_000 }),
          maxAgeMs: fc.nat(5_000),
        }),
        (startedAt, need) => {
          const expected =
            !need.deleting &&
            need.vmInRead &&
            startedAt >= need.freshAfter &&
            need.now - startedAt <= need.maxAgeMs;
          expect(mayShareRead(startedAt, need)).toBe(expected);
        },
      ),
    );
  });

  it('property: a machine whose VM the read holds decides the same whatever the other VMs show', () => {
    fc.assert(
      fc.property(vmOf(fc.constant('m1')), others, others, fc.boolean(), (own, before, after, busy) => {
        const vapp = (vms: ObservedVM[]) => ({ deployed: true, busy, description: intent.vappMarker, vms });
        const step = (vms: ObservedVM[]) => decideMachine(intent, { taskRunning: false, vapp: vapp(vms) });
        expect(step([...before, own])).toEqual(step([own, ...after]));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a create is never decided on a shared read (the VM it makes is not in it)', () => {
    fc.assert(
      fc.property(others, fc.boolean(), (vms, busy) => {
        const vapp = { deployed: true, busy, description: intent.vappMarker, vms };
        const vmInRead = vms.some((v) => v.name === intent.vmName);
        if (decideMachine(intent, { taskRunning: false, vapp }).kind !== 'CreateVM') return;
        expect(mayShareRead(0, { deleting: false, freshAfter: 0, vmInRead, now: 0, maxAgeMs: 1_000 })).toBe(
          false,
        );
      }),
    );
  });
});

/** The shared reads' fixtures: a vApp key, a vApp holding named VMs, a GET that counts. */
const key = 'uid/vdc-a/c1';
const record = (...names: string[]) =>
  ({
    href: 'h',
    name: 'c1',
    deployed: true,
    busy: false,
    description: '',
    networks: [],
    vms: names.map((name) => ({ name })),
  }) as unknown as VAppRecord;
const counting = (vapp: VAppRecord | undefined) => {
  const gets = { n: 0 };
  const read = async () => {
    gets.n++;
    return vapp;
  };
  return { gets, read };
};
const vcd = {} as VcdClient;

describe('VAppReads', () => {
  it('a batch whose task ended before a sibling read begins shares that read; a later change reads again', async () => {
    const clock = new ManualClock();
    const reads = new VAppReads(clock, 2_000);
    const { gets, read } = counting(record('m1', 'm2', 'm3'));
    const endedSeenAt = clock.now();
    clock.advance(10);
    for (const vmName of ['m1', 'm2', 'm3'])
      expect(
        await reads.share(key, vcd, { vmName, deleting: false, freshAfter: endedSeenAt }, read),
      ).toBeDefined();
    expect(gets.n).toBe(1);
    // m2's next task ended after the read began: it reads for itself.
    clock.advance(10);
    await reads.share(key, vcd, { vmName: 'm2', deleting: false, freshAfter: clock.now() }, read);
    expect(gets.n).toBe(2);
  });

  it('never shares with a machine without its VM, one being deleted, another session, nor past its age or a change', async () => {
    const clock = new ManualClock();
    const reads = new VAppReads(clock, 2_000);
    const { gets, read } = counting(record('m1', 'm2'));
    const look = (vmName: string, deleting = false, session = vcd) =>
      reads.share(key, session, { vmName, deleting, freshAfter: 0 }, read);
    await look('m1');
    await look('m9');
    await look('m1', true);
    await look('m1', false, {} as VcdClient);
    expect(gets.n).toBe(4);
    clock.advance(2_001);
    await look('m1');
    expect(gets.n).toBe(5);
    reads.changed(key);
    await look('m2');
    expect(gets.n).toBe(6);
    await look('m1');
    expect(gets.n).toBe(6);
  });

  it('keeps nothing for a vApp VCD does not show, and drops reads past their age', async () => {
    const clock = new ManualClock();
    const reads = new VAppReads(clock, 2_000);
    const none = counting(undefined);
    await reads.share(key, vcd, { vmName: 'm1', deleting: false, freshAfter: 0 }, none.read);
    expect(reads.size).toBe(0);
    await reads.share(
      key,
      vcd,
      { vmName: 'm1', deleting: false, freshAfter: 0 },
      counting(record('m1')).read,
    );
    clock.advance(2_001);
    await reads.share(
      'other',
      vcd,
      { vmName: 'm1', deleting: false, freshAfter: 0 },
      counting(record('m1')).read,
    );
    expect(reads.size).toBe(1);
  });
});
