import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainMs, type IdealInputs, idealFormula, idealMs, rateMs } from '../../bench/scale-ideal.js';

const inputs = fc.record({
  machines: fc.integer({ min: 1, max: 2_000 }),
  tasksInChain: fc.integer({ min: 1, max: 6 }),
  taskMs: fc.integer({ min: 0, max: 60_000 }),
  bootMs: fc.integer({ min: 0, max: 120_000 }),
  callsPerMachine: fc.integer({ min: 1, max: 200 }),
  qps: fc.integer({ min: 1, max: 100 }),
  burst: fc.integer({ min: 1, max: 200 }),
});

describe('the scale row’s VCD-bound ideal', () => {
  it('property: the larger of the chain and the request budget, never below either', () => {
    fc.assert(
      fc.property(inputs, (i: IdealInputs) => {
        expect(idealMs(i)).toBe(Math.max(chainMs(i), rateMs(i)));
        expect(idealMs(i)).toBeGreaterThanOrEqual(i.tasksInChain * i.taskMs + i.bootMs);
        expect(idealMs(i) * i.qps).toBeGreaterThanOrEqual(
          (i.machines * i.callsPerMachine - i.burst) * 1000 - 1e-6,
        );
      }),
    );
  });

  it('property: more machines never make it sooner; within the burst only the chain counts', () => {
    fc.assert(
      fc.property(inputs, fc.integer({ min: 1, max: 500 }), (i, more) => {
        expect(idealMs({ ...i, machines: i.machines + more })).toBeGreaterThanOrEqual(idealMs(i));
        const withinBurst = { ...i, burst: i.machines * i.callsPerMachine };
        expect(idealMs(withinBurst)).toBe(chainMs(i));
      }),
    );
  });

  it('prints the formula with its numbers: 100 machines at capvcd’s 10 qps, 1 s tasks', () => {
    const i = {
      machines: 100,
      tasksInChain: 3,
      taskMs: 1_000,
      bootMs: 500,
      callsPerMachine: 12,
      qps: 10,
      burst: 20,
    };
    expect(idealMs(i)).toBe(118_000);
    expect(idealFormula(i)).toBe(
      'max(3 tasks × 1.0 s + 0.5 s boot = 3.5 s, (100 × 12 calls − burst 20) / 10 qps = 118.0 s)',
    );
  });

  it('refuses a budget without a rate', () => {
    expect(() =>
      idealMs({ machines: 1, tasksInChain: 1, taskMs: 1, bootMs: 0, callsPerMachine: 1, qps: 0, burst: 1 }),
    ).toThrow(/positive qps/);
  });
});
