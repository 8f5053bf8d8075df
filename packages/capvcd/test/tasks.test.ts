/**
 * The recorded-task protocol on the provider's clock: a running task is looked at again after a
 * quarter of its age (within bounds), and a finished one is measured from the start recorded in
 * status to the reconcile that found it ended. vcdsim runs on its own virtual clock, so a task
 * stays running until the test ends it; the provider's time is a ManualClock.
 */
import { fileURLToPath } from 'node:url';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { ManualClock } from '@capstan/runtime/testing';
import { startVcdSim, type VcdSim } from '@capstan/vcdsim';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapvcdMetrics, Connections } from '../src/index.js';
import { checkTask, pollDelay, taskRef } from '../src/tasks.js';
import { composeVApp } from '../src/vcd/vapp.js';

const seed = fileURLToPath(new URL('./fixtures/seed.yaml', import.meta.url));
const alice = { org: 'tenant-a', username: 'alice', password: 'alice-password' };
const polling = { minMs: 1_000, maxMs: 15_000 };
let sim: VcdSim<ManualClock>;

beforeAll(async () => {
  sim = await startVcdSim({ seed, taskLatencyMs: 60_000, clock: 'virtual' });
});
afterAll(async () => {
  await sim?.stop();
});

describe('pollDelay', () => {
  it('is a quarter of the task’s age, within the bounds, and never shrinks as the task ages', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.nat(10_000_000), (a, b) => {
        const start = Date.UTC(2026, 0, 1);
        const [younger, older] = a <= b ? [a, b] : [b, a];
        const at = (age: number) => pollDelay(new Date(start).toISOString(), start + age, polling);
        expect(at(younger)).toBeLessThanOrEqual(at(older));
        expect(at(older)).toBe(Math.min(polling.maxMs, Math.max(polling.minMs, Math.round(older / 4))));
      }),
    );
  });
});

describe('checkTask on the provider’s clock', () => {
  it('polls a running task by its age on the clock, and measures a finished one from its recorded start', async () => {
    const clock = new ManualClock();
    const registry = new MetricsRegistry();
    const metrics = new CapvcdMetrics(registry.registry);
    const connections = new Connections({}, metrics.onCall);
    const { vcd, directory } = connections.connect({ url: sim.url, caPem: sim.caPem }, alice);
    const vdc = await directory.vdc('vdc-a');
    const networks = await directory.networks('vdc-a', ['net-a']);
    const ref = taskRef(
      await composeVApp(vcd, vdc.href, { name: 'tasks-test', description: 'task protocol', networks }),
      'ComposeVApp',
      clock.now(),
    );
    expect(ref.startedAt).toBe(new Date(clock.now()).toISOString());

    clock.advance(2_000);
    expect(await checkTask(vcd, ref, clock.now(), polling, metrics)).toEqual({
      kind: 'running',
      pollAfterMs: 1_000,
    });
    clock.advance(38_000);
    expect(await checkTask(vcd, ref, clock.now(), polling, metrics)).toEqual({
      kind: 'running',
      pollAfterMs: 10_000,
    });

    sim.clock.advance(60_000); // vcdsim ends the task
    clock.advance(25_000);
    expect(await checkTask(vcd, ref, clock.now(), polling, metrics)).toEqual({ kind: 'succeeded' });
    const text = await registry.text();
    expect(text).toMatch(
      /^capvcd_vcd_task_duration_seconds_bucket\{le="60",operation="ComposeVApp",result="success"\} 0$/m,
    );
    expect(text).toMatch(
      /^capvcd_vcd_task_duration_seconds_bucket\{le="120",operation="ComposeVApp",result="success"\} 1$/m,
    );
    expect(text).toMatch(
      /^capvcd_vcd_task_duration_seconds_sum\{operation="ComposeVApp",result="success"\} 65$/m,
    );
    expect(text).toMatch(
      /^capvcd_vcd_requests_total\{method="POST",path="\/api\/vdc\/\{id\}\/action\/composeVApp",code="201"\} 1$/m,
    );
    connections.close();
  });

  it('makes the same series again on one registry instead of failing on a duplicate name', () => {
    const registry = new MetricsRegistry();
    const first = new CapvcdMetrics(registry.registry);
    const second = new CapvcdMetrics(registry.registry);
    second.onCall({ method: 'GET', path: '/api/org', status: 200, durationMs: 5 });
    expect(first.calls.value({ method: 'GET', path: '/api/org', code: '200' })).toBe(1);
  });
});
