/**
 * VM creation in batches: the pure choice ({@link nextBatch}) by properties, and the per-vApp
 * record ({@link VAppBatches}) on a manual clock.
 */
import { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskRef } from '../src/api/types.js';
import { type BatchCandidate, nextBatch, refusalBlamesItems } from '../src/decide/batch.js';
import { BATCH_GRACE_MS, VAppBatches } from '../src/machine/vapp-batches.js';
import { VcdError } from '../src/vcd/errors.js';
import type { NewVm } from '../src/vcd/vapp.js';

const candidateArb: fc.Arbitrary<BatchCandidate> = fc.record({
  machine: fc.constantFrom('ns/m0', 'ns/m1', 'ns/m2', 'ns/m3', 'ns/m4', 'ns/m5', 'ns/m6', 'ns/m7'),
  // A few names, so two machines sometimes want one name (a naming template's collision).
  vmName: fc.constantFrom('c-a', 'c-b', 'c-c', 'c-d', 'c-e', 'c-f'),
  joinedAt: fc.integer({ min: 0, max: 50 }),
  alone: fc.boolean(),
});
const candidatesArb = fc.uniqueArray(candidateArb, { selector: (c) => c.machine, maxLength: 8 });
const presentArb = fc.uniqueArray(fc.constantFrom('c-a', 'c-b', 'c-c', 'c-d', 'c-e', 'c-f', 'x'), {
  maxLength: 3,
});
const capArb = fc.integer({ min: 1, max: 10 });

const older = (a: BatchCandidate, b: BatchCandidate) =>
  a.joinedAt - b.joinedAt || a.machine.localeCompare(b.machine);

describe('nextBatch', () => {
  it('property: a batch of waiting machines, each VM its own, none the vApp holds, at most cap', () => {
    fc.assert(
      fc.property(candidatesArb, presentArb, capArb, (candidates, presentList, cap) => {
        const present = new Set<string>(presentList);
        const batch = nextBatch(candidates, present, cap);
        expect(batch.length).toBeLessThanOrEqual(cap);
        for (const b of batch) {
          expect(candidates).toContainEqual(b);
          expect(present.has(b.vmName)).toBe(false);
        }
        expect(new Set(batch.map((b) => b.machine)).size).toBe(batch.length);
        expect(new Set(batch.map((b) => b.vmName)).size).toBe(batch.length);
        const eligible = candidates.filter((c) => !present.has(c.vmName));
        expect(batch.length === 0).toBe(eligible.length === 0);
      }),
    );
  });

  it('property: the oldest eligible machine is always in the batch; one refused before goes alone', () => {
    fc.assert(
      fc.property(candidatesArb, presentArb, capArb, (candidates, presentList, cap) => {
        const present = new Set<string>(presentList);
        const batch = nextBatch(candidates, present, cap);
        const oldest = candidates.filter((c) => !present.has(c.vmName)).sort(older)[0];
        if (oldest) expect(batch[0]).toEqual(oldest);
        if (batch.some((b) => b.alone)) expect(batch).toHaveLength(1);
      }),
    );
  });

  it('property: nobody starves: batches drain every waiting machine, at most one batch each', () => {
    fc.assert(
      fc.property(candidatesArb, capArb, (candidates, cap) => {
        let waiting = candidates;
        const present = new Set<string>();
        let rounds = 0;
        for (; waiting.length > 0; rounds++) {
          const batch = nextBatch(waiting, present, cap);
          expect(batch.length).toBeGreaterThan(0);
          // Each VM made is in the vApp now; a machine whose name another took stays out.
          for (const b of batch) present.add(b.vmName);
          waiting = waiting.filter((w) => !present.has(w.vmName));
        }
        expect(rounds).toBeLessThanOrEqual(candidates.length);
        if (
          candidates.every((c) => !c.alone) &&
          new Set(candidates.map((c) => c.vmName)).size === candidates.length
        )
          expect(rounds).toBe(Math.ceil(candidates.length / cap));
      }),
    );
  });

  it('property: only a refusal that is not transient, of more than one item, blames the items', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.integer({ min: 1, max: 30 }), (transient, size) => {
        expect(refusalBlamesItems(transient, size)).toBe(!transient && size > 1);
      }),
    );
  });
});

const item = (name: string): NewVm => ({
  name,
  description: `capvcd machine ns/${name}`,
  templateVmHref: 'https://vcd/api/vAppTemplate/vm-1',
  networks: ['net'],
  guestCustomization: false,
});
const task: TaskRef = {
  href: 'https://vcd/api/task/1',
  operation: 'CreateVM',
  startedAt: '2026-01-01T00:00:00Z',
};

describe('VAppBatches', () => {
  it('sends the waiting with the sender, and leaves each other member the task once', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 10);
    expect(batches.join('v', 'ns/a', item('a'), 3000)).toBe(1);
    clock.advance(10);
    expect(batches.join('v', 'ns/b', item('b'), 3000)).toBe(2);
    const batch = batches.take('v', { machine: 'ns/c', item: item('c'), lookMs: 3000 }, new Set());
    expect(batch.map((b) => b.machine)).toEqual(['ns/a', 'ns/b', 'ns/c']);
    batches.sent(batch, 'ns/c', task);
    expect(batches.claim('ns/a')).toEqual({ task, size: 3 });
    expect(batches.claim('ns/a')).toBeUndefined();
    expect(batches.claim('ns/c')).toBeUndefined(); // the sender records its own
    expect(batches.size).toEqual({ vapps: 0, outcomes: 1 });
  });

  it('leaves out a VM the vApp holds, a machine gone quiet, and one that left', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 10);
    batches.join('v', 'ns/quiet', item('quiet'), 1000);
    clock.advance(1000 + BATCH_GRACE_MS + 1);
    batches.join('v', 'ns/made', item('made'), 3000);
    batches.join('v', 'ns/gone', item('gone'), 3000);
    batches.leave('v', 'ns/gone');
    const batch = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set(['made']));
    expect(batch.map((b) => b.machine)).toEqual(['ns/s']);
  });

  it('keeps a sender the cap leaves out waiting, first in line next time', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 2);
    batches.join('v', 'ns/a', item('a'), 3000);
    batches.join('v', 'ns/b', item('b'), 3000);
    clock.advance(5);
    const first = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set());
    expect(first.map((b) => b.machine)).toEqual(['ns/a', 'ns/b']);
    const next = batches.take('v', { machine: 'ns/t', item: item('t'), lookMs: 3000 }, new Set(['a', 'b']));
    expect(next.map((b) => b.machine)).toEqual(['ns/s', 'ns/t']);
  });

  it('a refusal reaches every member as its own VCD error; one that blames the items sends each alone next', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 10);
    batches.join('v', 'ns/a', item('a'), 3000);
    const batch = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set());
    batches.refused(batch, 'ns/s', new VcdError(400, 'BAD_REQUEST', 'no such network', 'POST /x'));
    const outcome = batches.claim('ns/a');
    expect(outcome && 'error' in outcome && outcome.error).toBeInstanceOf(VcdError);
    const error = (outcome as { error: VcdError }).error;
    expect([error.status, error.minorErrorCode]).toEqual([400, 'BAD_REQUEST']);
    expect(error.message).toMatch(/recompose of 2 VMs that carried a was refused: no such network/);
    batches.join('v', 'ns/a', item('a'), 3000);
    const alone = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set());
    expect(alone).toHaveLength(1);
    batches.sent(alone, 'ns/s', task);
    // Sent, the sender is batchable again; `a` still goes by itself until its own batch is sent.
    batches.join('v', 'ns/b', item('b'), 3000);
    expect(
      batches.take('v', { machine: 'ns/c', item: item('c'), lookMs: 3000 }, new Set(['a', 's'])).length,
    ).toBe(2);
  });

  it('a busy vApp or a server fault blames nobody: the members stay batchable', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 10);
    batches.join('v', 'ns/a', item('a'), 3000);
    const batch = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set());
    batches.refused(batch, 'ns/s', new VcdError(400, 'BUSY_ENTITY', 'busy'));
    expect(batches.claim('ns/a')).toMatchObject({ error: { minorErrorCode: 'BUSY_ENTITY' } });
    batches.join('v', 'ns/a', item('a'), 3000);
    expect(batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 3000 }, new Set())).toHaveLength(2);
  });

  it('forgets an outcome its machine never came back for', () => {
    const clock = new ManualClock(0);
    const batches = new VAppBatches(clock, 10);
    batches.join('v', 'ns/a', item('a'), 1000);
    const batch = batches.take('v', { machine: 'ns/s', item: item('s'), lookMs: 1000 }, new Set());
    batches.sent(batch, 'ns/s', task);
    clock.advance(1000 + BATCH_GRACE_MS + 1);
    expect(batches.claim('ns/a')).toBeUndefined();
  });
});
