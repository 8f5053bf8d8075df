/**
 * Builders, an independent oracle of the budget count, and fast-check arbitraries shared by the
 * planner tests.
 */

import { capstanProtocol, coordinatorKeys, formatTimestamp, type Protocol } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import {
  type NamedRebootGroup,
  type NodeSnapshot,
  type NodeWrite,
  type RebootGroupSpec,
} from '../../src/index.js';

export const NOW = Date.UTC(2025, 0, 6, 12, 0, 0); // a Monday, 12:00 UTC
export const MINUTE = 60_000;
export const P = capstanProtocol;
export const A = P.annotations;
export const L = P.labels;
export const K = coordinatorKeys;

/** A healthy node with no reboot business; override what a test needs. */
export function node(name: string, over: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return {
    name,
    resourceVersion: '1',
    labels: {},
    annotations: {},
    unschedulable: false,
    conditions: { Ready: 'True' },
    bootID: `${name}-boot-1`,
    ...over,
  };
}

/** A node whose agent asks for a reboot. */
export function asking(name: string, over: Partial<NodeSnapshot> = {}, protocol: Protocol = P): NodeSnapshot {
  const n = node(name, over);
  return { ...n, annotations: { [protocol.annotations.rebootNeeded]: 'true', ...n.annotations } };
}

export function group(name: string, spec: RebootGroupSpec): NamedRebootGroup {
  return { name, spec };
}

export function ts(ms: number): string {
  return formatTimestamp(ms);
}

/** Independent oracle: does the node count against its group's budget (|D|)? */
export function countsOracle(n: NodeSnapshot, protocol: Protocol = P): boolean {
  const a = n.annotations;
  const l = n.labels;
  return (
    n.conditions.Ready !== 'True' ||
    n.unschedulable ||
    n.conditions.DiskPressure === 'True' ||
    n.conditions.NetworkUnavailable === 'True' ||
    a[protocol.annotations.rebootOk] === 'true' ||
    a[protocol.annotations.rebootInProgress] === 'true' ||
    l[protocol.labels.beforeReboot] === 'true' ||
    l[protocol.labels.afterReboot] === 'true' ||
    a[K.grantedAt] !== undefined ||
    a[K.grantedBootId] !== undefined ||
    a[K.failed] !== undefined
  );
}

/** Independent oracle: nodes holding a slot the coordinator gave out. */
export function holdsSlotOracle(n: NodeSnapshot, protocol: Protocol = P): boolean {
  const a = n.annotations;
  return (
    a[protocol.annotations.rebootOk] === 'true' ||
    n.labels[protocol.labels.beforeReboot] === 'true' ||
    n.labels[protocol.labels.afterReboot] === 'true' ||
    a[K.grantedAt] !== undefined ||
    a[K.grantedBootId] !== undefined
  );
}

export function asksOracle(n: NodeSnapshot, protocol: Protocol = P): boolean {
  return (
    n.annotations[protocol.annotations.rebootNeeded] === 'true' &&
    n.annotations[protocol.annotations.rebootPaused] !== 'true'
  );
}

/** Independent oracle of a budget: counts as is, percentages rounded down, at least 1. */
export function budgetOracle(maxUnavailable: number | string | undefined, size: number): number {
  if (maxUnavailable === undefined) return 1;
  if (typeof maxUnavailable === 'number') return maxUnavailable;
  return Math.max(1, Math.floor((size * Number(maxUnavailable.replace('%', ''))) / 100));
}

export function byName(nodes: readonly NodeSnapshot[], name: string): NodeSnapshot {
  const n = nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name}`);
  return n;
}

export function writeFor(writes: readonly NodeWrite[], name: string): NodeWrite | undefined {
  return writes.find((w) => w.node === name);
}

/** Whether a write newly grants (`reboot-ok` to "true"). */
export function grants(w: NodeWrite, before: NodeSnapshot, protocol: Protocol = P): boolean {
  return (
    w.setAnnotations[protocol.annotations.rebootOk] === 'true' &&
    before.annotations[protocol.annotations.rebootOk] !== 'true'
  );
}

/** Whether a write newly schedules (before-reboot label to "true"), or grants straight away. */
export function startsCycle(w: NodeWrite, before: NodeSnapshot, protocol: Protocol = P): boolean {
  return (
    (w.setLabels[protocol.labels.beforeReboot] === 'true' &&
      before.labels[protocol.labels.beforeReboot] !== 'true') ||
    grants(w, before, protocol)
  );
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const pools = ['a', 'b', 'c'] as const;
const garbage = fc.oneof(
  fc.constantFrom('TRUE', 'yes', '1', '', '-1', 'null', 'truee', ' true'),
  fc.string({ maxLength: 12 }),
);

function flagValue(weightTrue = 2): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: fc.constant('true'), weight: weightTrue },
    { arbitrary: fc.constant('false'), weight: 1 },
    { arbitrary: garbage, weight: 1 },
  );
}

function timeValue(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: fc.integer({ min: -120, max: 5 }).map((m) => ts(NOW + m * MINUTE)), weight: 3 },
    { arbitrary: garbage, weight: 1 },
  );
}

function maybe<T>(arb: fc.Arbitrary<T>, weight = 1): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight });
}

export const HOOK_BEFORE = 'hooks.example.com/before-drained';
export const HOOK_AFTER = 'hooks.example.com/after-checked';

/** A node in any state of the cycle, with some garbage sprinkled on, mostly healthy. */
export function arbNode(name: string, protocol: Protocol = P): fc.Arbitrary<NodeSnapshot> {
  const a = protocol.annotations;
  const l = protocol.labels;
  const noiseKeys = [
    a.rebootNeeded,
    a.rebootPaused,
    a.rebootInProgress,
    a.rebootOk,
    K.requestedAt,
    K.grantedAt,
    K.grantedBootId,
    K.rebootedAt,
    HOOK_BEFORE,
    HOOK_AFTER,
  ];
  return fc
    .record({
      pool: fc.constantFrom(...pools),
      state: fc.oneof(
        { arbitrary: fc.constantFrom('idle', 'asking'), weight: 8 },
        {
          arbitrary: fc.constantFrom('scheduled', 'granted', 'rebooted', 'afterHooks', 'returning'),
          weight: 3,
        },
      ),
      health: fc.oneof(
        { arbitrary: fc.constant('ok'), weight: 12 },
        { arbitrary: fc.constantFrom('notReady', 'unknown', 'cordoned', 'disk', 'net'), weight: 2 },
      ),
      paused: fc.integer({ min: 0, max: 7 }).map((i) => i === 0),
      inProgress: fc.integer({ min: 0, max: 9 }).map((i) => i === 0),
      requestedAt: timeValue(),
      grantedMinutesAgo: fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 25 }), weight: 4 },
        { arbitrary: fc.integer({ min: 26, max: 90 }), weight: 1 },
      ),
      hookBefore: flagValue(2),
      hookAfter: flagValue(2),
      failed: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 30 },
        { arbitrary: fc.constantFrom('RebootNotVerified 2025-01-01T00:00:00.000Z', 'x'), weight: 1 },
      ),
      rebootedAt: maybe(fc.constant(ts(NOW - 600 * MINUTE))),
      noBootId: fc.integer({ min: 0, max: 9 }).map((i) => i === 0),
      noise: fc.oneof(
        { arbitrary: fc.constant([] as Array<[string, string | undefined]>), weight: 2 },
        {
          arbitrary: fc.array(
            fc.tuple(fc.constantFrom(...noiseKeys), fc.oneof(garbage, fc.constant(undefined))),
            {
              maxLength: 2,
            },
          ),
          weight: 1,
        },
      ),
      labelNoise: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 8 },
        {
          arbitrary: fc.tuple(
            fc.constantFrom(l.beforeReboot, l.afterReboot),
            fc.constantFrom('true', 'yes', ''),
          ),
          weight: 1,
        },
      ),
    })
    .map((r): NodeSnapshot => {
      const ann: Record<string, string> = {};
      const labels: Record<string, string> = { pool: r.pool };
      let bootID = `${name}-boot-1`;
      let unschedulable = false;
      const grantMarks = (): void => {
        ann[K.grantedAt] = ts(NOW - r.grantedMinutesAgo * MINUTE);
        ann[K.grantedBootId] = `${name}-boot-1`;
      };
      switch (r.state) {
        case 'idle':
          if (r.paused) ann[a.rebootNeeded] = 'false';
          break;
        case 'asking':
          ann[a.rebootNeeded] = 'true';
          break;
        case 'scheduled':
          ann[a.rebootNeeded] = 'true';
          labels[l.beforeReboot] = 'true';
          break;
        case 'granted':
          ann[a.rebootNeeded] = 'true';
          ann[a.rebootOk] = 'true';
          grantMarks();
          if (r.inProgress) {
            ann[a.rebootInProgress] = 'true';
            unschedulable = true;
            ann[a.agentMadeUnschedulable] = 'true';
          }
          break;
        case 'rebooted':
          ann[a.rebootNeeded] = 'false';
          ann[a.rebootOk] = 'true';
          grantMarks();
          bootID = `${name}-boot-2`;
          break;
        case 'afterHooks':
          ann[a.rebootOk] = 'true';
          labels[l.afterReboot] = 'true';
          grantMarks();
          bootID = `${name}-boot-2`;
          break;
        case 'returning':
          grantMarks();
          bootID = `${name}-boot-2`;
          unschedulable = r.inProgress;
          break;
      }
      if (r.paused) ann[a.rebootPaused] = 'true';
      if (r.state !== 'granted' && r.inProgress && r.state !== 'returning') ann[a.rebootInProgress] = 'true';
      if (r.requestedAt !== undefined) ann[K.requestedAt] = r.requestedAt;
      if (r.hookBefore !== undefined) ann[HOOK_BEFORE] = r.hookBefore;
      if (r.hookAfter !== undefined) ann[HOOK_AFTER] = r.hookAfter;
      if (r.failed !== undefined) ann[K.failed] = r.failed;
      if (r.rebootedAt !== undefined) ann[K.rebootedAt] = r.rebootedAt;
      for (const [k, v] of r.noise) {
        if (v === undefined) delete ann[k];
        else ann[k] = v;
      }
      if (r.labelNoise) labels[r.labelNoise[0]] = r.labelNoise[1];
      const conditions: NodeSnapshot['conditions'] = { Ready: 'True' };
      if (r.health === 'notReady') conditions.Ready = 'False';
      if (r.health === 'unknown') delete conditions.Ready;
      if (r.health === 'disk') conditions.DiskPressure = 'True';
      if (r.health === 'net') conditions.NetworkUnavailable = 'True';
      if (r.health === 'cordoned') unschedulable = true;
      return {
        name,
        resourceVersion: '7',
        labels,
        annotations: ann,
        unschedulable,
        conditions,
        bootID: r.noBootId ? '' : bootID,
      };
    });
}

export function arbNodes(protocol: Protocol = P, max = 8): fc.Arbitrary<NodeSnapshot[]> {
  return fc
    .integer({ min: 1, max })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbNode(`node-${i}`, protocol))));
}

export const arbMaxUnavailable = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 1, max: 3 }),
  fc.constantFrom('0%', '25%', '34%', '50%', '100%'),
);

/** Groups over the `pool` label (possibly overlapping, possibly none). */
export function arbGroups(
  opts: { windows?: boolean; hooks?: boolean } = {},
): fc.Arbitrary<NamedRebootGroup[]> {
  const spec: fc.Arbitrary<RebootGroupSpec> = fc
    .record({
      pools: fc.subarray([...pools], { minLength: 1 }),
      maxUnavailable: arbMaxUnavailable,
      order: fc.constantFrom(0, 0, 0, 1, 2),
      pausedMaybe: fc.integer({ min: 0, max: 9 }),
      before: opts.hooks === false ? fc.constant(false) : fc.boolean(),
      after: opts.hooks === false ? fc.constant(false) : fc.boolean(),
      windows: opts.windows ? fc.array(arbWindow, { maxLength: 2 }) : fc.constant(undefined),
      grantTimeout: fc.constantFrom(undefined, '30m', '1h'),
    })
    .map((r) => {
      const s: RebootGroupSpec = {
        nodeSelector: { matchExpressions: [{ key: 'pool', operator: 'In', values: r.pools }] },
        order: r.order,
      };
      if (r.maxUnavailable !== undefined) s.maxUnavailable = r.maxUnavailable;
      if (r.pausedMaybe === 0) s.paused = true;
      if (r.before) s.beforeRebootAnnotations = [HOOK_BEFORE];
      if (r.after) s.afterRebootAnnotations = [HOOK_AFTER];
      if (r.windows) s.windows = r.windows;
      if (r.grantTimeout) s.grantTimeout = r.grantTimeout;
      return s;
    });
  return fc.array(spec, { maxLength: 3 }).map((specs) => specs.map((s, i) => group(`group-${i}`, s)));
}

/** Time zones with a fixed offset (minutes east of UTC), so a test can compute local time by hand. */
export const FIXED_ZONES: Record<string, number> = {
  UTC: 0,
  'Asia/Kolkata': 330,
  'Asia/Tokyo': 540,
  'America/Bogota': -300,
  'Asia/Kathmandu': 345,
};

const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);

export const arbWindow = fc
  .record({
    days: fc.subarray(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const),
    start: hhmm,
    end: hhmm,
    timeZone: fc.constantFrom(...Object.keys(FIXED_ZONES)),
  })
  .filter((w) => w.start !== w.end)
  .map((w) => ({ ...w, days: [...w.days] }));
