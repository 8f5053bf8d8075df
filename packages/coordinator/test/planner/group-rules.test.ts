/** The planner's group rules: timeouts, order and groups, windows, FLUO keys, garbage. */
import { fluoProtocol } from '@capstan/reboot-protocol';
import { describe, expect, it } from 'vitest';
import { applyWrites, type NodeSnapshot, type PlanInput, plan } from '../../src/index.js';
import { A, asking, byName, countsOracle, group, K, L, MINUTE, NOW, node, ts, writeFor } from './fixtures.js';

/** Plans and applies, returning the new nodes and the plan. */
function step(input: PlanInput): { nodes: NodeSnapshot[]; result: ReturnType<typeof plan> } {
  const result = plan(input);
  return { nodes: applyWrites(input.nodes, result.writes), result };
}

describe('timeouts', () => {
  const stale = node('n1', {
    annotations: {
      [A.rebootOk]: 'true',
      [A.rebootNeeded]: 'true',
      [K.grantedAt]: ts(NOW - 31 * MINUTE),
      [K.grantedBootId]: 'n1-boot-1',
    },
  });

  it('marks a grant not acted upon as failed, keeps it counting and halts the group', () => {
    const { nodes, result } = step({
      nodes: [stale, asking('n2')],
      groups: [group('g', { maxUnavailable: 5 })],
      now: NOW,
    });
    const n1 = byName(nodes, 'n1');
    expect(n1.annotations[K.failed]).toBe(`GrantNotActedOn ${ts(NOW)}`);
    expect(n1.annotations[A.rebootOk]).toBe('true');
    expect(countsOracle(n1)).toBe(true);
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBeUndefined();
    expect(result.findings.map((f) => f.kind)).toContain('GrantTimedOut');
    expect(result.groupStatus.g?.queue).toMatchObject([{ node: 'n2', reason: 'GroupHalted' }]);
    expect(result.groupStatus.g?.conditions.find((c) => c.type === 'Halted')?.status).toBe('True');
  });

  it('calls it RebootNotVerified once the agent acted', () => {
    const acting = {
      ...stale,
      unschedulable: true,
      annotations: { ...stale.annotations, [A.rebootInProgress]: 'true' },
    };
    const { nodes } = step({ nodes: [acting], groups: [], now: NOW });
    expect(byName(nodes, 'n1').annotations[K.failed]).toMatch(/^RebootNotVerified /);
  });

  it('honours the group grant timeout', () => {
    const r = plan({ nodes: [stale], groups: [group('g', { grantTimeout: '1h' })], now: NOW });
    expect(r.writes).toEqual([]);
  });

  it('resumes the group once an admin removes the failure marker of a completed node', () => {
    const done = node('n1', {
      annotations: { [K.failed]: 'RebootNotVerified x', [K.rebootedAt]: ts(NOW - MINUTE) },
    });
    expect(
      plan({ nodes: [done, asking('n2')], groups: [], now: NOW }).writes.some(
        (w) => w.setAnnotations[A.rebootOk],
      ),
    ).toBe(false);
    const cleared = { ...done, annotations: { [K.rebootedAt]: ts(NOW - MINUTE) } };
    const r = plan({ nodes: [cleared, asking('n2')], groups: [], now: NOW });
    expect(writeFor(r.writes, 'n2')?.setAnnotations[A.rebootOk]).toBe('true');
  });
});

describe('order and groups', () => {
  const cp = group('control-plane', {
    nodeSelector: { matchLabels: { role: 'cp' } },
    order: 0,
    maxUnavailable: 1,
  });
  const workers = group('workers', {
    nodeSelector: { matchLabels: { role: 'worker' } },
    order: 10,
    maxUnavailable: 2,
  });

  it('lets a group grant only when lower-order groups have nobody asking or in flight', () => {
    const nodes = [
      asking('cp1', { labels: { role: 'cp' } }),
      asking('cp2', { labels: { role: 'cp' } }),
      asking('w1', { labels: { role: 'worker' } }),
    ];
    const r = plan({ nodes, groups: [workers, cp], now: NOW });
    expect(r.writes.filter((w) => w.setAnnotations[A.rebootOk]).map((w) => w.node)).toEqual(['cp1']);
    expect(r.groupStatus.workers?.queue[0]?.reason).toBe('WaitingForLowerOrder');
    expect(r.groupStatus['control-plane']?.queue[0]).toMatchObject({
      node: 'cp2',
      reason: 'BudgetExhausted',
    });
  });

  it('puts unmatched nodes in the default group, and reports nodes matched twice', () => {
    const nodes = [node('x'), node('both', { labels: { role: 'cp', pool: 'p' } })];
    const other = group('pool', { nodeSelector: { matchLabels: { pool: 'p' } }, order: 5 });
    const r = plan({ nodes, groups: [cp, other], now: NOW });
    expect(r.membership).toEqual({ x: 'default', both: 'control-plane' });
    expect(r.findings.map((f) => f.kind)).toContain('NodeInSeveralGroups');
    expect(r.groupStatus.default?.nodes).toBe(1);
    const twice = r.findings.filter((f) => f.kind === 'NodeInSeveralGroups');
    expect(twice.map((f) => [f.node, f.group])).toEqual([
      ['both', 'control-plane'],
      ['both', 'pool'],
    ]);
  });

  it('does not count the default group as a second match for nodes another group selects', () => {
    const nodes = [node('c', { labels: { role: 'cp' } }), node('x')];
    const r = plan({ nodes, groups: [cp], now: NOW });
    expect(r.membership).toEqual({ c: 'control-plane', x: 'default' });
    expect(r.findings.filter((f) => f.kind === 'NodeInSeveralGroups')).toEqual([]);
  });

  it('uses a RebootGroup named like the default group as the default policy', () => {
    const r = plan({
      nodes: [asking('a'), asking('b')],
      groups: [group('default', { nodeSelector: { matchLabels: { none: 'x' } }, maxUnavailable: 2 })],
      now: NOW,
    });
    expect(r.writes.filter((w) => w.setAnnotations[A.rebootOk]).length).toBe(2);
  });

  it('holds an invalid group and reports why', () => {
    const bad = group('bad', { windows: [{ start: '01:00', end: '01:00', timeZone: 'Mars/Olympus' }] });
    const r = plan({ nodes: [asking('a')], groups: [bad], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.bad?.conditions.find((c) => c.type === 'Valid')).toMatchObject({ status: 'False' });
    expect(r.findings.find((f) => f.kind === 'InvalidGroup')?.message).toMatch(/Mars\/Olympus/);
  });

  it('holds the default group when a selector is unusable (membership unknown)', () => {
    const bad = group('bad', {
      nodeSelector: { matchExpressions: [{ key: 'k', operator: 'In', values: [] }] },
    });
    const r = plan({ nodes: [asking('a')], groups: [bad], now: NOW });
    expect(r.membership.a).toBe('default');
    expect(r.groupStatus.default?.queue[0]?.reason).toBe('InvalidGroup');
  });
});

describe('windows', () => {
  // Every day 22:00 to 02:00 in Berlin (UTC+1 in January).
  const night = group('g', { windows: [{ start: '22:00', end: '02:00', timeZone: 'Europe/Berlin' }] });

  it('schedules nothing outside the window, but lets an in-flight node finish', () => {
    const r = plan({ nodes: [asking('a')], groups: [night], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.g).toMatchObject({
      windowOpen: false,
      queue: [{ node: 'a', reason: 'OutsideWindow' }],
    });
    const back = node('b', {
      bootID: 'b-2',
      annotations: { [A.rebootOk]: 'true', [K.grantedAt]: ts(NOW - MINUTE), [K.grantedBootId]: 'b-1' },
    });
    const r2 = plan({ nodes: [back], groups: [night], now: NOW });
    expect(writeFor(r2.writes, 'b')?.actions).toContain('Completed');
  });

  it('grants inside a window that crosses midnight', () => {
    const at = Date.UTC(2025, 0, 6, 23, 30); // 00:30 Tuesday in Berlin
    const r = plan({ nodes: [asking('a')], groups: [night], now: at });
    expect(writeFor(r.writes, 'a')?.setAnnotations[A.rebootOk]).toBe('true');
  });
});

describe('FLUO compatibility', () => {
  it('speaks FLUO keys and withdraws reboot-ok by writing "false"', () => {
    const f = fluoProtocol.annotations;
    const granted = node('n1', {
      bootID: 'n1-boot-2',
      annotations: {
        [f.rebootOk]: 'true',
        [f.rebootNeeded]: 'false',
        [f.rebootInProgress]: 'false',
        [K.grantedAt]: ts(NOW - MINUTE),
        [K.grantedBootId]: 'n1-boot-1',
      },
    });
    const r = plan({ nodes: [granted], groups: [], now: NOW, options: { protocol: fluoProtocol } });
    const w = writeFor(r.writes, 'n1');
    expect(w?.setAnnotations[f.rebootOk]).toBe('false');
    expect(w?.removeAnnotations).not.toContain(f.rebootOk);
    expect(f.rebootOk).toBe('flatcar-linux-update.v1.flatcar-linux.net/reboot-ok');
  });

  it('grants a FLUO agent with FLUO keys; our bookkeeping stays under our prefix', () => {
    const f = fluoProtocol.annotations;
    const n = node('n1', { annotations: { [f.rebootNeeded]: 'true', [f.rebootOk]: 'false' } });
    const w = writeFor(
      plan({ nodes: [n], groups: [], now: NOW, options: { protocol: fluoProtocol } }).writes,
      'n1',
    );
    expect(w?.setAnnotations[f.rebootOk]).toBe('true');
    for (const key of Object.keys(w?.setAnnotations ?? {})) {
      expect(key === f.rebootOk || key.startsWith('reboot.capstan.dev/')).toBe(true);
    }
  });
});

describe('garbage', () => {
  it('reads garbage as unset, reports it and cleans our own keys', () => {
    const n = node('n1', {
      labels: { [L.beforeReboot]: 'maybe' },
      annotations: { [A.rebootNeeded]: 'TRUE', [A.rebootOk]: 'yes', [K.requestedAt]: '-5' },
    });
    const r = plan({ nodes: [n], groups: [], now: NOW });
    const w = writeFor(r.writes, 'n1');
    expect(w?.removeAnnotations.sort()).toEqual([A.rebootOk, K.requestedAt].sort());
    expect(w?.removeLabels).toEqual([L.beforeReboot]);
    expect(
      r.findings
        .filter((f) => f.kind === 'GarbageValue')
        .map((f) => f.key)
        .sort(),
    ).toEqual([A.rebootNeeded, A.rebootOk, K.requestedAt, L.beforeReboot].sort());
  });

  it('adopts a reboot-ok it has no record of, fenced to the current boot', () => {
    const n = node('n1', { annotations: { [A.rebootOk]: 'true', [A.rebootNeeded]: 'true' } });
    const { nodes, result } = step({ nodes: [n], groups: [], now: NOW });
    expect(byName(nodes, 'n1').annotations[K.grantedBootId]).toBe('n1-boot-1');
    expect(result.findings.map((f) => f.kind)).toContain('GrantAdopted');
  });

  it('waits for a node that reports no boot ID', () => {
    const r = plan({ nodes: [asking('n1', { bootID: '' })], groups: [], now: NOW });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk])).toBe(false);
    expect(r.groupStatus.default?.queue[0]?.reason).toBe('NoBootID');
  });
});
