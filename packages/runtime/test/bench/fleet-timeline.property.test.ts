import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetTimeline } from '../../bench/fleet-timeline.js';

/** One node's cycle as offsets: granted, then down, up and done after it. */
const cycle = fc.record({
  granted: fc.integer({ min: 0, max: 100_000 }),
  toDown: fc.integer({ min: 0, max: 5_000 }),
  toUp: fc.integer({ min: 0, max: 10_000 }),
  toDone: fc.integer({ min: 0, max: 5_000 }),
});

/** What the observer saw of a node. */
const s = (granted: boolean, ready: boolean, rebooted: boolean, out: boolean) => ({
  granted,
  ready,
  rebooted,
  out,
});

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('FleetTimeline', () => {
  it('property: each phase is the median of the nodes’ own spans, whatever order events come in', () => {
    fc.assert(
      fc.property(fc.array(cycle, { minLength: 1, maxLength: 40 }), (cycles) => {
        const timeline = new FleetTimeline();
        const events = cycles.flatMap((c, i) => {
          const down = c.granted + c.toDown;
          const up = down + c.toUp;
          const seen = (granted: boolean, ready: boolean, rebooted: boolean, out: boolean) => ({
            granted,
            ready,
            rebooted,
            out,
          });
          return [
            { at: c.granted, order: 0, name: `n${i}`, seen: seen(true, true, false, false) },
            { at: down, order: 1, name: `n${i}`, seen: seen(true, false, false, false) },
            { at: up, order: 2, name: `n${i}`, seen: seen(true, true, true, false) },
            { at: up + c.toDone, order: 3, name: `n${i}`, seen: seen(false, true, true, true) },
          ];
        });
        // Watch events arrive in time order (a node's own in its order).
        events.sort((a, b) => a.at - b.at || a.order - b.order);
        for (const e of events) timeline.see(e.name, 'g', e.seen, e.at);
        const m = timeline.medians();
        expect(m.grants).toBe(cycles.length);
        expect(m.grantToDown).toBe(medianOf(cycles.map((c) => c.toDown)));
        expect(m.downToUp).toBe(medianOf(cycles.map((c) => c.toUp)));
        expect(m.upToDone).toBe(medianOf(cycles.map((c) => c.toDone)));
        // Every grant after the first is a refill only when a slot was freed before it.
        expect(m.refills).toBeLessThanOrEqual(cycles.length - 1);
        if (m.freeToGrant !== undefined) expect(m.freeToGrant).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('a grant after a freed slot counts the wait since that slot was freed', () => {
    const timeline = new FleetTimeline();
    timeline.see('a', 'g', s(true, true, false, false), 0);
    timeline.see('a', 'g', s(true, false, false, false), 100);
    timeline.see('a', 'g', s(true, true, true, false), 5_100);
    timeline.see('a', 'g', s(false, true, true, true), 5_400);
    timeline.see('b', 'g', s(true, true, false, false), 5_450);
    timeline.see('c', 'other', s(true, true, false, false), 6_000);
    expect(timeline.medians()).toMatchObject({ freeToGrant: 50, refills: 1, grants: 3 });
  });

  it('edges: the first grant after the start, and each group change from last done to next grant', () => {
    const timeline = new FleetTimeline();
    const cycle = (name: string, group: string, at: number) => {
      timeline.see(name, group, s(true, true, false, false), at);
      timeline.see(name, group, s(true, false, false, false), at + 100);
      timeline.see(name, group, s(true, true, true, false), at + 5_000);
      timeline.see(name, group, s(false, true, true, true), at + 5_300);
    };
    cycle('a', 'g1', 1_000);
    cycle('b', 'g1', 2_000); // g1's last done: 7,300
    cycle('c', 'g2', 7_500); // 200 ms later
    cycle('d', 'g3', 13_800); // 1,000 ms after c's done at 12,800
    expect(timeline.edges(['g1', 'g2', 'g3'], 400)).toEqual({ firstGrantMs: 600, changesMs: [200, 1_000] });
    expect(timeline.edges(['g1', 'missing', 'g3'], 0).changesMs).toEqual([]);
  });

  it('steps: the agent’s and the coordinator’s writes inside grant→down and up→done, by group rank', () => {
    const timeline = new FleetTimeline();
    const at = (name: string, group: string, t0: number, stretch: number) => {
      const flags = { asking: true, rebootOk: true, cordoned: false };
      const see = (
        t: number,
        seen: Partial<typeof flags> & { granted: boolean; ready: boolean; rebooted: boolean; out: boolean },
      ) => timeline.see(name, group, { ...flags, ...seen }, t0 + t * stretch);
      see(0, { granted: true, ready: true, rebooted: false, out: false });
      see(10, { granted: true, ready: true, rebooted: false, out: false, cordoned: true });
      see(40, { granted: true, ready: false, rebooted: false, out: false, cordoned: true });
      see(540, { granted: true, ready: true, rebooted: true, out: false, cordoned: true });
      // The agent's start: asks no more and uncordons in one write; then the coordinator's release.
      see(550, { granted: true, ready: true, rebooted: true, out: false, asking: false });
      see(570, { granted: false, ready: true, rebooted: true, out: true, asking: false, rebootOk: false });
    };
    at('a', 'g1', 0, 1);
    at('b', 'g2', 1_000, 2);
    const m = timeline.medians(['g1', 'g2']);
    // Medians of two take the upper one (b, twice as slow).
    expect(m.steps).toEqual({
      cordon: 20,
      'drain+down': 60,
      'agent back': 20,
      released: 40,
      uncordoned: 0,
      'out of flight': 0,
    });
    expect(m.byGroupRank).toEqual({
      'grant→down, first 5 groups': 80,
      'grant→down, last 5': 80,
      'up→done, first 5': 60,
      'up→done, last 5': 60,
    });
  });
});
