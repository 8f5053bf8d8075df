/**
 * The planner's group steps on their own: the gate's order of reasons, and the next wake-up from
 * the group policy (grant timeouts, windows), each against an oracle written out here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateOf, type NodeFacts, resolveGroup, wakeAfter } from '../../src/index.js';
import { MINUTE, NOW } from './fixtures.js';

const policy = (spec: Parameters<typeof resolveGroup>[1], timeoutMs = 30 * MINUTE) =>
  resolveGroup('g', spec, timeoutMs, false);

describe('gate', () => {
  const arbGate = fc.record({
    invalid: fc.boolean(),
    paused: fc.boolean(),
    failed: fc.array(fc.constantFrom('n1', 'n2'), { maxLength: 2 }),
    lowerBusy: fc.array(fc.constantFrom('cp'), { maxLength: 1 }),
    windowOpen: fc.boolean(),
  });

  it('names the first reason in the order invalid, paused, halted, lower order, window; open otherwise', () => {
    fc.assert(
      fc.property(arbGate, (r) => {
        const group = policy({ maxUnavailable: r.invalid ? 0 : 1, paused: r.paused });
        const gate = gateOf({ group, ...r, membershipUnknown: [], isDefault: false });
        const oracle = r.invalid
          ? 'InvalidGroup'
          : r.paused
            ? 'GroupPaused'
            : r.failed.length > 0
              ? 'GroupHalted'
              : r.lowerBusy.length > 0
                ? 'WaitingForLowerOrder'
                : !r.windowOpen
                  ? 'OutsideWindow'
                  : undefined;
        expect(gate?.reason).toBe(oracle);
        if (oracle === 'GroupHalted') expect(gate?.message).toContain(r.failed.join(', '));
      }),
    );
  });

  it('holds the default group while another group’s selector is unusable', () => {
    const gate = gateOf({
      group: policy({ maxUnavailable: 1 }),
      failed: [],
      windowOpen: true,
      lowerBusy: [],
      membershipUnknown: ['broken'],
      isDefault: true,
    });
    expect(gate).toEqual({
      reason: 'InvalidGroup',
      message: 'membership is unknown while groups broken have invalid selectors',
    });
  });
});

describe('next wake-up', () => {
  const granted = (grantedAt: number | undefined, failed = false) => ({ grantedAt, failed }) as NodeFacts;

  it('is the earliest unexpired grant deadline (+1 ms), never past the horizon, at least 1 ms', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ ago: fc.integer({ min: 0, max: 60 * MINUTE }), failed: fc.boolean() }), {
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 40 * MINUTE }),
        fc.constantFrom(undefined, '10m', '45m'),
        (grants, horizonMs, grantTimeout) => {
          const group = policy({ maxUnavailable: 1, ...(grantTimeout ? { grantTimeout } : {}) });
          const nodes = grants.map((g) => granted(NOW - g.ago, g.failed));
          const wake = wakeAfter({
            now: NOW,
            horizonMs,
            groups: [{ policy: group, nodes, outsideWindowWaiting: false }],
          });
          const dues = grants
            .filter((g) => !g.failed)
            .map((g) => g.ago)
            .map((ago) => group.grantTimeoutMs - ago)
            .filter((due) => due > 0)
            .map((due) => due + 1);
          expect(wake).toBe(Math.max(1, Math.min(horizonMs, ...dues)));
        },
      ),
    );
  });

  it('wakes at the minute a window opens for a group whose nodes wait outside it', () => {
    const group = policy({ maxUnavailable: 1, windows: [{ start: '12:05', end: '13:00', timeZone: 'UTC' }] });
    const now = NOW + 30_000; // 12:00:30 UTC
    const wake = wakeAfter({
      now,
      horizonMs: 3_600_000,
      groups: [{ policy: group, nodes: [], outsideWindowWaiting: true }],
    });
    expect(wake).toBe(5 * MINUTE - 30_000);
    const idle = wakeAfter({
      now,
      horizonMs: 3_600_000,
      groups: [{ policy: group, nodes: [], outsideWindowWaiting: false }],
    });
    expect(idle).toBe(3_600_000);
    expect(
      wakeAfter({
        now,
        horizonMs: 3_600_000,
        groups: [{ policy: group, nodes: [granted(undefined)], outsideWindowWaiting: false }],
      }),
    ).toBe(3_600_000);
  });
});
