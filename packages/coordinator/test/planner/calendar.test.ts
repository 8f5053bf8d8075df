/**
 * Cron-style windows and blackouts beside the weekly windows: a cron window is open for its
 * duration after each time its schedule names (read in its time zone), a blackout keeps anything
 * new from starting whatever the windows say, both are honoured at schedule and at grant, bad
 * input makes the group invalid, and the planner wakes when a blackout ends. Properties check the
 * cron window against hand-computed local time in fixed-offset zones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calendarAt, isCronWindowOpen, plan, validateRebootGroupSpec } from '../../src/index.js';
import {
  A,
  arbGroups,
  arbNodes,
  asking,
  FIXED_ZONES,
  K,
  L,
  MINUTE,
  NOW,
  startsCycle,
  ts,
} from './fixtures.js';

const HOUR = 60 * MINUTE;
const at = (iso: string) => Date.parse(iso);

describe('cron windows', () => {
  const secondTuesday = { schedule: '0 2 * * TUE#2', duration: '4h', timeZone: 'Europe/Berlin' };

  it('opens on the second Tuesday at 02:00 Berlin time for four hours, not on the first', () => {
    // 8 December 2026 is the second Tuesday; Berlin is UTC+1 in winter.
    expect(isCronWindowOpen(secondTuesday, at('2026-12-08T00:59:00Z'))).toBe(false);
    expect(isCronWindowOpen(secondTuesday, at('2026-12-08T01:00:00Z'))).toBe(true);
    expect(isCronWindowOpen(secondTuesday, at('2026-12-08T04:59:59Z'))).toBe(true);
    expect(isCronWindowOpen(secondTuesday, at('2026-12-08T05:00:00Z'))).toBe(false);
    expect(isCronWindowOpen(secondTuesday, at('2026-12-01T02:00:00Z'))).toBe(false);
    // Summer time: 02:00 Berlin is 00:00 UTC on 9 June 2026.
    expect(isCronWindowOpen(secondTuesday, at('2026-06-09T00:30:00Z'))).toBe(true);
  });

  it('is never open when malformed, and the group says why', () => {
    for (const bad of [
      { schedule: 'every tuesday', duration: '4h' },
      { schedule: '0 2 * * *', duration: '0s' },
      { schedule: '0 2 * * *', duration: '4h', timeZone: 'Mars/Olympus' },
    ]) {
      expect(isCronWindowOpen(bad, NOW)).toBe(false);
      expect(validateRebootGroupSpec({ cronWindows: [bad] }).map((p) => p.path)[0]).toMatch(
        /^spec\.cronWindows\[0\]\./,
      );
    }
  });

  it('agrees with local time computed by hand (daily schedules, fixed-offset zones)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 1, max: 23 * 60 }),
        fc.constantFrom(...Object.keys(FIXED_ZONES)),
        fc.integer({ min: 0, max: 14 * 24 * 60 }),
        (hour, minute, durationMin, zone, offsetMin) => {
          const now = NOW + offsetMin * MINUTE;
          const window = { schedule: `${minute} ${hour} * * *`, duration: `${durationMin}m`, timeZone: zone };
          const local = (((now / MINUTE + (FIXED_ZONES[zone] as number)) % 1440) + 1440) % 1440;
          const since = (((local - (hour * 60 + minute)) % 1440) + 1440) % 1440;
          expect(isCronWindowOpen(window, now)).toBe(since < durationMin);
        },
      ),
    );
  });
});

describe('blackouts', () => {
  const freeze = { start: ts(NOW - HOUR), end: ts(NOW + HOUR), reason: 'year-end freeze' };

  it('hold every node with reason Blackout, whatever the windows say, and the planner wakes when one ends', () => {
    const g = { name: 'g', spec: { maxUnavailable: 1, blackouts: [freeze] } };
    const r = plan({ nodes: [asking('n1')], groups: [g], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(false);
    expect(r.groupStatus.g?.queue[0]).toMatchObject({
      reason: 'Blackout',
      message: expect.stringContaining('year-end freeze'),
    });
    expect(r.groupStatus.g?.windowOpen).toBe(false);
    const ending = { name: 'g', spec: { blackouts: [{ start: ts(NOW - HOUR), end: ts(NOW + 10_000) }] } };
    expect(
      plan({ nodes: [asking('n1')], groups: [ending], now: NOW, options: { horizonMs: 60_000 } }).wakeAfterMs,
    ).toBeLessThanOrEqual(10_000);
    const after = plan({ nodes: [asking('n1')], groups: [g], now: NOW + HOUR });
    expect(after.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(true);
  });

  it('makes the group invalid when malformed', () => {
    expect(validateRebootGroupSpec({ blackouts: [{ start: ts(NOW), end: ts(NOW) }] })[0]?.path).toBe(
      'spec.blackouts[0]',
    );
    expect(validateRebootGroupSpec({ blackouts: [{ start: 'tomorrow', end: ts(NOW) }] })).toHaveLength(1);
  });
});

const arbCalendar = fc.record({
  cronWindows: fc.array(
    fc.record({
      schedule: fc.constantFrom('0 2 * * TUE#2', '*/30 * * * *', '0 12 * * MON', '0 0 L * *', '15 9 * * *'),
      duration: fc.constantFrom('30m', '2h', '24h'),
      timeZone: fc.constantFrom(...Object.keys(FIXED_ZONES), 'Europe/Berlin'),
    }),
    { maxLength: 2 },
  ),
  blackouts: fc.array(
    fc.tuple(fc.integer({ min: -48, max: 48 }), fc.integer({ min: 1, max: 48 })).map(([from, hours]) => ({
      start: ts(NOW + from * HOUR),
      end: ts(NOW + (from + hours) * HOUR),
    })),
    { maxLength: 2 },
  ),
});

describe('the calendar in the planner (property)', () => {
  it('never schedules or grants inside a blackout or outside every window; windowOpen agrees', () => {
    let started = 0;
    fc.assert(
      fc.property(
        arbNodes(),
        arbGroups({ hooks: false }),
        fc.array(arbCalendar, { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 60 * 24 * 40 }),
        (nodes, groups, calendars, minutes) => {
          const now = NOW + minutes * MINUTE;
          const gs = groups.map((g, i) => ({ ...g, spec: { ...g.spec, ...calendars[i] } }));
          const r = plan({ nodes, groups: gs, now });
          for (const w of r.writes) {
            const before = nodes.find((n) => n.name === w.node);
            const spec = gs.find((g) => g.name === r.membership[w.node])?.spec;
            if (!before || !spec || !startsCycle(w, before)) continue;
            started++;
            const inBlackout = (spec.blackouts ?? []).some(
              (b) => now >= Date.parse(b.start) && now < Date.parse(b.end),
            );
            expect(inBlackout).toBe(false);
            expect(calendarAt(spec, now).open).toBe(true);
          }
          for (const [name, status] of Object.entries(r.groupStatus)) {
            const spec = gs.find((g) => g.name === name)?.spec;
            if (spec) expect(status.windowOpen).toBe(calendarAt(spec, now).open);
          }
        },
      ),
    );
    expect(started).toBeGreaterThan(0);
  });
});

describe('a scheduled node and the calendar', () => {
  it('is not granted while a blackout holds, though it holds its slot', () => {
    const scheduled = asking('n1', {
      labels: { [L.beforeReboot]: 'true' },
      annotations: { [K.requestedAt]: ts(NOW - 2 * MINUTE), [K.hookWaitSince]: ts(NOW - MINUTE) },
    });
    const g = { name: 'g', spec: { blackouts: [{ start: ts(NOW - MINUTE), end: ts(NOW + HOUR) }] } };
    const r = plan({ nodes: [scheduled], groups: [g], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(false);
  });
});
