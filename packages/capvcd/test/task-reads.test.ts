/**
 * Task reads shared by the machines that recorded one task: the rule ({@link reusable}) by
 * properties, the record ({@link SharedTaskReads}) on a manual clock over a client that counts GETs.
 */
import { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reusable, SharedTaskReads, type TaskReadSharing } from '../src/task-reads.js';
import type { Task, VcdClient } from '../src/vcd/client.js';
import { VcdError } from '../src/vcd/errors.js';

const statuses: Task['status'][] = ['queued', 'preRunning', 'running', 'success', 'error', 'aborted'];
const running = (s: Task['status']) => s === 'queued' || s === 'preRunning' || s === 'running';
const sharing: TaskReadSharing = { runningMs: 500, endedMs: 60_000 };

describe('reusable', () => {
  it('believes a running read for runningMs, an ended one for endedMs, none from the future', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...statuses),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: -10_000, max: 200_000 }),
        fc.record({ runningMs: fc.nat(5_000), endedMs: fc.nat(100_000) }),
        (status, at, age, policy) => {
          const ok = reusable({ task: { href: 't', status }, at }, at + age, policy);
          const limit = running(status) ? policy.runningMs : policy.endedMs;
          expect(ok).toBe(age >= 0 && age <= limit);
        },
      ),
    );
  });

  it('never lets a running read answer longer than an ended one when runningMs <= endedMs', () => {
    fc.assert(
      fc.property(fc.nat(100_000), fc.nat(100_000), fc.nat(200_000), (a, b, age) => {
        const policy = { runningMs: Math.min(a, b), endedMs: Math.max(a, b) };
        const read = (status: Task['status']) =>
          reusable({ task: { href: 't', status }, at: 0 }, age, policy);
        if (read('running')) expect(read('success')).toBe(true);
      }),
    );
  });
});

/** A client whose task GETs are counted and answered from `states`, each GET resolving when released. */
function countingClient(states: Map<string, Task['status'] | Error>) {
  const gets: string[] = [];
  const pending: Array<() => void> = [];
  const vcd = {
    task: (href: string) => {
      gets.push(href);
      return new Promise<Task>((resolve, reject) => {
        pending.push(() => {
          const state = states.get(href);
          if (state instanceof Error) reject(state);
          else resolve({ href, status: state ?? 'running' });
        });
      });
    },
  } as unknown as VcdClient;
  const release = async () => {
    for (const answer of pending.splice(0)) answer();
    await new Promise((r) => setImmediate(r));
  };
  return { vcd, gets, release };
}

describe('SharedTaskReads', () => {
  it('makes one GET of reads in flight at once, and keeps an ended task for every later member', async () => {
    const clock = new ManualClock();
    const states = new Map<string, Task['status'] | Error>([['t1', 'success']]);
    const { vcd, gets, release } = countingClient(states);
    const reads = new SharedTaskReads(clock, sharing);
    const members = Array.from({ length: 25 }, () => reads.read(vcd, 't1'));
    await release();
    expect((await Promise.all(members)).map((r) => r.task.status)).toEqual(Array(25).fill('success'));
    clock.advance(30_000);
    expect((await reads.read(vcd, 't1')).task.status).toBe('success');
    expect(gets).toEqual(['t1']);
  });

  it('believes a running task only briefly: past runningMs it reads again and sees the end', async () => {
    const clock = new ManualClock();
    const states = new Map<string, Task['status'] | Error>([['t1', 'running']]);
    const { vcd, gets, release } = countingClient(states);
    const reads = new SharedTaskReads(clock, sharing);
    const first = reads.read(vcd, 't1');
    await release();
    expect((await first).task.status).toBe('running');
    states.set('t1', 'success');
    clock.advance(sharing.runningMs);
    expect((await reads.read(vcd, 't1')).task.status).toBe('running');
    clock.advance(1);
    const again = reads.read(vcd, 't1');
    await release();
    expect((await again).task.status).toBe('success');
    expect(gets).toEqual(['t1', 't1']);
  });

  it('keeps no failed read: each waiter gets the error, the next asks VCD again', async () => {
    const clock = new ManualClock();
    const states = new Map<string, Task['status'] | Error>([['t1', new VcdError(503, 'BUSY', 'busy')]]);
    const { vcd, gets, release } = countingClient(states);
    const reads = new SharedTaskReads(clock, sharing);
    const both = [reads.read(vcd, 't1'), reads.read(vcd, 't1')];
    await release();
    for (const p of both) await expect(p).rejects.toThrow('busy');
    states.set('t1', 'error');
    const next = reads.read(vcd, 't1');
    await release();
    expect((await next).task.status).toBe('error');
    expect(gets).toEqual(['t1', 't1']);
  });

  it('shares nothing between sessions, and drops reads no longer believed', async () => {
    const clock = new ManualClock();
    const states = new Map<string, Task['status'] | Error>([
      ['t1', 'success'],
      ['t2', 'success'],
    ]);
    const a = countingClient(states);
    const b = countingClient(states);
    const reads = new SharedTaskReads(clock, sharing);
    const fromA = reads.read(a.vcd, 't1');
    const fromB = reads.read(b.vcd, 't1');
    await a.release();
    await b.release();
    await Promise.all([fromA, fromB]);
    expect([a.gets, b.gets]).toEqual([['t1'], ['t1']]);
    clock.advance(sharing.endedMs + 1);
    const later = reads.read(a.vcd, 't2');
    await a.release();
    await later;
    expect(reads.kept(a.vcd)).toBe(1);
  });
});
