import { describe, expect, it } from 'vitest';
import {
  isWindowOpen,
  isWithinWindows,
  resolveBudget,
  snapshotNode,
  validateRebootGroup,
} from '../../src/index.js';

describe('budget', () => {
  it('rounds percentages down with a floor of one', () => {
    expect(resolveBudget(undefined, 10)).toBe(1);
    expect(resolveBudget(3, 10)).toBe(3);
    expect(resolveBudget('25%', 10)).toBe(2);
    expect(resolveBudget('25%', 3)).toBe(1);
    expect(resolveBudget('0%', 3)).toBe(1);
    expect(resolveBudget('100%', 7)).toBe(7);
    expect(resolveBudget(-4, 7)).toBe(1);
    expect(resolveBudget('150%', 7)).toBe(1);
  });
});

describe('reboot windows', () => {
  const at = (iso: string): number => Date.parse(iso);

  it('opens from start (inclusive) to end (exclusive) in the window time zone', () => {
    const w = { start: '09:00', end: '17:00', timeZone: 'America/New_York', days: ['Mon' as const] };
    expect(isWindowOpen(w, at('2025-01-06T14:00:00Z'))).toBe(true); // 09:00 Mon in New York
    expect(isWindowOpen(w, at('2025-01-06T13:59:00Z'))).toBe(false);
    expect(isWindowOpen(w, at('2025-01-06T22:00:00Z'))).toBe(false); // 17:00
    expect(isWindowOpen(w, at('2025-01-07T14:00:00Z'))).toBe(false); // Tuesday
  });

  it('crosses midnight: the morning part belongs to the previous day', () => {
    const w = { start: '22:00', end: '02:00', timeZone: 'Europe/Berlin', days: ['Fri' as const] };
    expect(isWindowOpen(w, at('2025-01-10T21:30:00Z'))).toBe(true); // Fri 22:30 Berlin
    expect(isWindowOpen(w, at('2025-01-11T00:30:00Z'))).toBe(true); // Sat 01:30, Friday's window
    expect(isWindowOpen(w, at('2025-01-11T01:00:00Z'))).toBe(false); // Sat 02:00
    expect(isWindowOpen(w, at('2025-01-09T23:30:00Z'))).toBe(false); // Fri 00:30, Thursday's window
  });

  it('follows daylight saving time', () => {
    const w = { start: '02:30', end: '04:00', timeZone: 'Europe/Berlin' };
    // Summer: UTC+2, so 01:00Z is 03:00 local.
    expect(isWindowOpen(w, at('2025-07-01T01:00:00Z'))).toBe(true);
    // Winter: UTC+1, so 01:00Z is 02:00 local.
    expect(isWindowOpen(w, at('2025-01-01T01:00:00Z'))).toBe(false);
  });

  it('fails closed on malformed windows and is always open without windows', () => {
    const now = at('2025-01-06T12:00:00Z');
    expect(isWindowOpen({ start: '10:00', end: '14:00', timeZone: 'Mars/Base' }, now)).toBe(false);
    expect(isWindowOpen({ start: '12:00', end: '12:00' }, now)).toBe(false);
    expect(isWindowOpen({ start: '25:00', end: '14:00' }, now)).toBe(false);
    expect(isWithinWindows(undefined, now)).toBe(true);
    expect(isWithinWindows([], now)).toBe(true);
  });
});

describe('validateRebootGroup', () => {
  const valid = {
    apiVersion: 'reboot.capstan.dev/v1alpha1',
    kind: 'RebootGroup',
    metadata: { name: 'workers' },
    spec: {
      nodeSelector: { matchExpressions: [{ key: 'role', operator: 'In', values: ['worker'] }] },
      maxUnavailable: '25%',
      order: 10,
      windows: [{ days: ['Sat', 'Sun'], start: '22:00', end: '04:00', timeZone: 'Europe/Berlin' }],
      beforeRebootAnnotations: ['example.com/drained'],
      grantTimeout: '45m',
      paused: false,
    },
  };

  it('accepts a sound group', () => {
    expect(validateRebootGroup(valid)).toEqual([]);
  });

  it('reports what a schema cannot see', () => {
    const bad = structuredClone(valid) as typeof valid & { spec: Record<string, unknown> };
    bad.spec.windows = [{ start: '03:00', end: '03:00', timeZone: 'Europe/Atlantis' }] as never;
    bad.spec.nodeSelector = {
      matchExpressions: [{ key: 'role', operator: 'Exists', values: ['x'] }],
    } as never;
    expect(validateRebootGroup(bad).map((p) => p.path)).toEqual([
      'spec.nodeSelector.matchExpressions[0].values',
      'spec.windows[0]',
      'spec.windows[0].timeZone',
    ]);
  });

  it('re-checks what the schema refuses, for objects that bypassed it', () => {
    const bad = structuredClone(valid) as unknown as { spec: Record<string, unknown> };
    Object.assign(bad.spec, { maxUnavailable: 0, order: 1.5, grantTimeout: 'soon', paused: 'yes' });
    (bad.spec.windows as Array<Record<string, unknown>>)[0] = {
      days: ['Funday'],
      start: '9:00',
      end: '24:00',
    };
    expect(validateRebootGroup(bad).map((p) => p.path)).toEqual([
      'spec.maxUnavailable',
      'spec.order',
      'spec.windows[0].start',
      'spec.windows[0].end',
      'spec.windows[0].days[0]',
      'spec.grantTimeout',
      'spec.paused',
    ]);
  });

  it('never throws on garbage', () => {
    for (const g of [null, 1, 'x', [], {}, { metadata: {}, spec: { windows: [null, 1] } }]) {
      expect(() => validateRebootGroup(g)).not.toThrow();
      expect(validateRebootGroup(g).length).toBeGreaterThan(0);
    }
  });
});

describe('snapshotNode', () => {
  it('copies what the planner needs out of a Node object', () => {
    const n = snapshotNode({
      metadata: { name: 'n1', resourceVersion: '42', labels: { a: 'b' }, annotations: { x: 'y', bad: 3 } },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'DiskPressure', status: 'False' },
          { type: 'MemoryPressure', status: 'True' },
        ],
        nodeInfo: { bootID: 'b-1', machineID: 'm-1' },
      },
    });
    expect(n).toEqual({
      name: 'n1',
      resourceVersion: '42',
      labels: { a: 'b' },
      annotations: { x: 'y' },
      unschedulable: true,
      conditions: { Ready: 'True', DiskPressure: 'False' },
      bootID: 'b-1',
      machineID: 'm-1',
    });
    expect(snapshotNode(null)).toMatchObject({ name: '', bootID: '', conditions: {} });
  });
});
