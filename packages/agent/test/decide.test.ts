import {
  AGENT_DRAIN_STARTED_ANNOTATION,
  AGENT_FAILURE_ANNOTATION,
  capstanProtocol,
  coordinatorKeys,
  fluoProtocol,
  formatAgentFailure,
  formatTimestamp,
} from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentMemory,
  type AgentView,
  type DecisionConfig,
  INITIAL_MEMORY,
  type NodeFacts,
} from '../src/api/index.js';
import { decide, grantFacts, phaseOf } from '../src/decide/decide.js';
import { pod } from './fixtures.js';

const k = capstanProtocol.annotations;
const l = capstanProtocol.labels;
const config: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 10_000,
  forceReboot: false,
  failureBackoffMs: 60_000,
  podPollMs: 500,
};
const NOW = 1_700_000_000_000;
const BOOTED: AgentMemory = { ...INITIAL_MEMORY, booted: true };

function node(annotations: Record<string, string> = {}, extra: Partial<NodeFacts> = {}): NodeFacts {
  return { name: 'n1', annotations, labels: {}, unschedulable: false, bootID: 'boot-1', ...extra };
}
function view(n: NodeFacts, extra: Partial<AgentView> = {}): AgentView {
  return { now: NOW, node: n, source: { rebootNeeded: true }, sourceKnown: true, os: undefined, ...extra };
}
const granted = {
  [k.rebootNeeded]: 'true',
  [k.rebootOk]: 'true',
  [coordinatorKeys.grantedBootId]: 'boot-1',
};
const reported = { [l.rebootNeeded]: 'true' };

describe('decide', () => {
  it('at start clears in-progress, keeps needed without a grant, and uncordons only what the agent cordoned', () => {
    const mine = decide(
      view(
        node(
          { [k.rebootInProgress]: 'true', [k.rebootNeeded]: 'true', [k.agentMadeUnschedulable]: 'true' },
          { unschedulable: true, bootID: 'boot-2' },
        ),
      ),
      INITIAL_MEMORY,
      config,
    );
    expect(mine.phase).toBe('Starting');
    expect(mine.action).toMatchObject({
      kind: 'patch',
      patch: {
        annotations: {
          [k.rebootInProgress]: 'false',
          [k.agentMadeUnschedulable]: 'false',
        },
        labels: {},
        unschedulable: false,
      },
    });
    const admins = decide(
      view(
        node({ [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'false' }, { unschedulable: true }),
      ),
      INITIAL_MEMORY,
      config,
    );
    expect(admins.action.kind).toBe('patch');
    expect(admins.action.kind === 'patch' && admins.action.patch.unschedulable).toBeUndefined();
  });

  it('at start with a grant from an earlier boot waits for it to be withdrawn, not asking meanwhile', () => {
    const n = node(
      {
        ...granted,
        [k.rebootNeeded]: 'false',
        [k.rebootInProgress]: 'false',
        [coordinatorKeys.grantedBootId]: 'boot-0',
      },
      { labels: { [l.rebootNeeded]: 'false' } },
    );
    const d = decide(view(n), INITIAL_MEMORY, config);
    expect(d.phase).toBe('AwaitingGrantClear');
    expect(d.action).toEqual({ kind: 'wait' });
    expect(d.memory).toMatchObject({ booted: true, awaitingGrantClear: true });
    // Once withdrawn, it asks again.
    const after = decide(
      view(node({ [k.rebootNeeded]: 'false' }, { labels: { [l.rebootNeeded]: 'false' } })),
      d.memory,
      config,
    );
    expect(after.action).toMatchObject({
      kind: 'patch',
      patch: { annotations: { [k.rebootNeeded]: 'true' } },
    });
  });

  it('at start resumes a cycle whose grant is fenced to this very boot (a process restart, not a boot)', () => {
    const n = node(
      { ...granted, [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'true' },
      { unschedulable: true, labels: reported },
    );
    const d = decide(view(n), INITIAL_MEMORY, config);
    expect(d.phase).toBe('Draining');
    // No deadline was written by the earlier process: it starts counting now, on the node.
    expect(d.action).toMatchObject({
      kind: 'patch',
      patch: { annotations: { [AGENT_DRAIN_STARTED_ANNOTATION]: expect.any(String) } },
    });
    const next = decide(view(n), d.memory, config);
    expect(next.action).toEqual({ kind: 'listPods' });
  });

  it('ignores a grant fenced to another boot', () => {
    const n = node({ ...granted, [coordinatorKeys.grantedBootId]: 'boot-0' }, { labels: reported });
    const d = decide(view(n), BOOTED, config);
    expect(d.phase).toBe('Idle');
    expect(d.why).toMatch(/stale grant/);
    expect(d.action).toEqual({ kind: 'wait' });
  });

  it('acts on an unfenced grant (a FLUO operator writes no boot id)', () => {
    const d = decide(
      view(node({ [k.rebootNeeded]: 'true', [k.rebootOk]: 'true' }, { labels: reported })),
      BOOTED,
      config,
    );
    expect(d.phase).toBe('Cordoning');
  });

  it('cordons and marks in-progress in one write, remembering whose cordon it is', () => {
    const free = decide(view(node(granted, { labels: reported })), BOOTED, config);
    expect(free.action).toMatchObject({
      kind: 'patch',
      patch: {
        annotations: { [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'true' },
        unschedulable: true,
      },
    });
    const cordoned = decide(view(node(granted, { labels: reported, unschedulable: true })), BOOTED, config);
    expect(cordoned.action).toMatchObject({
      kind: 'patch',
      patch: { annotations: { [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'false' } },
    });
    expect(cordoned.action.kind === 'patch' && cordoned.action.patch.unschedulable).toBeUndefined();
  });

  it('starts the drain clock in the cordon write: the next step lists pods, no second write', () => {
    const d = decide(view(node(granted, { labels: reported })), BOOTED, config);
    expect(d.action).toMatchObject({
      kind: 'patch',
      patch: { annotations: { [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW) } },
    });
    expect(d.memory.drainStartedAt).toBe(NOW);
    // The node as that write left it.
    const written = node(
      {
        ...granted,
        [k.rebootInProgress]: 'true',
        [k.agentMadeUnschedulable]: 'true',
        [AGENT_DRAIN_STARTED_ANNOTATION]: formatTimestamp(NOW),
      },
      { labels: reported, unschedulable: true },
    );
    const next = decide(view(written), d.memory, config);
    expect(next.phase).toBe('Draining');
    expect(next.action).toEqual({ kind: 'listPods' });
  });

  const draining = node(
    { ...granted, [k.rebootInProgress]: 'true', [k.agentMadeUnschedulable]: 'true' },
    { labels: reported, unschedulable: true },
  );
  const drainMemory: AgentMemory = { ...BOOTED, drainStartedAt: NOW - 1_000 };

  it('evicts all but DaemonSet and mirror pods, then waits for them, then reboots', () => {
    const pods = [pod('web-1'), pod('ds-1', { daemonSet: true }), pod('static', { mirror: true })];
    const evict = decide(view(draining, { pods }), drainMemory, config);
    expect(evict.action).toEqual({ kind: 'evict', pods: [pods[0]] });
    const wait = decide(
      view(draining, { pods: [pod('web-1', { terminating: true }), pods[1]!, pods[2]!] }),
      drainMemory,
      config,
    );
    expect(wait.action).toEqual({ kind: 'wait', recheckAfterMs: 500 });
    const reboot = decide(view(draining, { pods: [pods[1]!, pods[2]!] }), drainMemory, config);
    expect(reboot.action).toEqual({ kind: 'reboot', forced: false });
    expect(reboot.memory.rebootRequestedAt).toBe(NOW);
  });

  it('backs off evictions refused by a budget', () => {
    const d = decide(
      view(draining, { pods: [pod('web-1')] }),
      { ...drainMemory, nextEvictionAt: NOW + 300 },
      config,
    );
    expect(d.action).toEqual({ kind: 'wait', recheckAfterMs: 300 });
  });

  it('a drain past its timeout abandons the cycle (uncordon, failure annotation) unless forced', () => {
    const late: AgentMemory = { ...BOOTED, drainStartedAt: NOW - 10_000 };
    const d = decide(view(draining, { pods: [pod('db-0')] }), late, config);
    expect(d.phase).toBe('Abandoning');
    expect(d.action).toMatchObject({
      kind: 'patch',
      failure: 'DrainFailed',
      patch: {
        annotations: { [k.rebootInProgress]: 'false', [k.agentMadeUnschedulable]: 'false' },
        unschedulable: false,
      },
      event: { type: 'Warning', reason: 'DrainFailed' },
    });
    expect(d.action.kind === 'patch' && d.action.patch.annotations[AGENT_FAILURE_ANNOTATION]).toMatch(
      /^DrainFailed 2023-11-14T22:13:20.000Z: drain did not finish within 10s: 1 pod\(s\) left \(ns\/db-0\)$/,
    );
    const forced = decide(view(draining, { pods: [pod('db-0')] }), late, { ...config, forceReboot: true });
    expect(forced.action).toEqual({ kind: 'reboot', forced: true });
  });

  it('after a failure, waits out the backoff before the next cycle', () => {
    const failedAt = NOW - 10_000;
    const n = node(
      { ...granted, [AGENT_FAILURE_ANNOTATION]: formatAgentFailure('DrainFailed', failedAt, 'x') },
      { labels: reported },
    );
    const d = decide(view(n), BOOTED, config);
    expect(d.phase).toBe('Backoff');
    expect(d.action).toEqual({ kind: 'wait', recheckAfterMs: 50_000 });
    const later = decide(view(n, { now: failedAt + 60_000 }), BOOTED, config);
    expect(later.phase).toBe('Cordoning');
    expect(later.action).toMatchObject({ patch: { annotations: { [AGENT_FAILURE_ANNOTATION]: null } } });
  });

  it('aborts mid-cycle when the grant is withdrawn, uncordoning only its own cordon', () => {
    const { [k.rebootOk]: _ok, ...withdrawn } = draining.annotations;
    const d = decide(view({ ...draining, annotations: withdrawn }), drainMemory, config);
    expect(d.phase).toBe('Aborting');
    expect(d.action).toMatchObject({ kind: 'patch', patch: { unschedulable: false } });
  });

  it('reports status, version, last check and OS labels; an unknown source leaves reboot-needed alone', () => {
    const d = decide(
      view(node({ [k.rebootNeeded]: 'true' }), {
        source: { rebootNeeded: false, status: 'UPDATE_STATUS_IDLE', newVersion: '', lastCheckedTime: 5n },
        os: { id: 'flatcar', version: '3975.2.0' },
      }),
      BOOTED,
      config,
    );
    expect(d.action).toEqual({
      kind: 'patch',
      patch: {
        annotations: {
          [k.rebootNeeded]: 'false',
          [k.status]: 'UPDATE_STATUS_IDLE',
          [k.newVersion]: '',
          [k.lastCheckedTime]: '5',
        },
        labels: { [l.rebootNeeded]: 'false', [l.id]: 'flatcar', [l.version]: '3975.2.0' },
      },
    });
    const unknown = decide(
      view(node({ [k.rebootNeeded]: 'true' }, { labels: reported }), {
        source: { rebootNeeded: false, error: 'bus down' },
        sourceKnown: false,
      }),
      BOOTED,
      config,
    );
    expect(unknown.action).toEqual({ kind: 'wait' });
  });

  it('speaks FLUO keys in FLUO mode', () => {
    const f = fluoProtocol.annotations;
    const d = decide(view(node()), INITIAL_MEMORY, { ...config, protocol: fluoProtocol });
    expect(d.action).toMatchObject({ patch: { annotations: { [f.rebootInProgress]: 'false' } } });
    const reporting = decide(view(node()), BOOTED, { ...config, protocol: fluoProtocol });
    expect(reporting.action).toMatchObject({ patch: { annotations: { [f.rebootNeeded]: 'true' } } });
  });
});

describe('agent safety (invariant 5) as properties of decide', () => {
  const flag = fc.constantFrom(undefined, 'true', 'false', 'garbage');
  const nodeArb = fc
    .record({
      ok: flag,
      needed: flag,
      inProgress: flag,
      agentMade: flag,
      grantedBootId: fc.constantFrom(undefined, 'boot-1', 'boot-0', ''),
      bootID: fc.constantFrom('boot-1', ''),
      unschedulable: fc.boolean(),
      failureAgoMs: fc.constantFrom(undefined, 1_000, 120_000),
    })
    .map((r): NodeFacts => {
      const a: Record<string, string> = {};
      if (r.ok !== undefined) a[k.rebootOk] = r.ok;
      if (r.needed !== undefined) a[k.rebootNeeded] = r.needed;
      if (r.inProgress !== undefined) a[k.rebootInProgress] = r.inProgress;
      if (r.agentMade !== undefined) a[k.agentMadeUnschedulable] = r.agentMade;
      if (r.grantedBootId !== undefined) a[coordinatorKeys.grantedBootId] = r.grantedBootId;
      if (r.failureAgoMs !== undefined)
        a[AGENT_FAILURE_ANNOTATION] = formatAgentFailure('DrainFailed', NOW - r.failureAgoMs, 'x');
      return { name: 'n1', annotations: a, labels: {}, unschedulable: r.unschedulable, bootID: r.bootID };
    });
  const memoryArb = fc.record({
    booted: fc.boolean(),
    awaitingGrantClear: fc.boolean(),
    drainStartedAt: fc.constantFrom(undefined, NOW - 1_000, NOW - 20_000),
    nextEvictionAt: fc.constantFrom(undefined, NOW + 100),
    blockedRounds: fc.nat(3),
    rebootRequestedAt: fc.constantFrom(undefined, undefined, NOW - 5),
  }) as fc.Arbitrary<AgentMemory>;
  const podsArb = fc.option(
    fc.array(
      fc
        .record({ daemonSet: fc.boolean(), mirror: fc.boolean(), terminating: fc.boolean() })
        .map((p) => pod('p', p)),
      { maxLength: 3 },
    ),
    { nil: undefined },
  );
  const inputs = fc.record({
    node: nodeArb,
    memory: memoryArb,
    pods: podsArb,
    needed: fc.boolean(),
    force: fc.boolean(),
  });

  it('reboots only when granted for this boot, cordoned, in progress, and drained (or timed out and forced)', () => {
    fc.assert(
      fc.property(inputs, ({ node: n, memory, pods, needed, force }) => {
        const d = decide(view(n, { source: { rebootNeeded: needed }, ...(pods ? { pods } : {}) }), memory, {
          ...config,
          forceReboot: force,
        });
        if (d.action.kind !== 'reboot') return;
        const g = grantFacts(n, capstanProtocol);
        expect(g.ok && g.needed && g.inProgress && g.grantForThisBoot && n.unschedulable).toBe(true);
        expect(memory.rebootRequestedAt).toBeUndefined();
        expect(memory.booted || g.grantFencedToThisBoot).toBe(true);
        const left = (pods ?? []).filter((p) => !p.daemonSet && !p.mirror);
        if (left.length > 0) expect(d.action.forced && force).toBe(true);
        expect(pods).toBeDefined();
      }),
      { numRuns: 5_000 },
    );
  });

  it('uncordons only what it cordoned, and cordons only when granted for this boot', () => {
    fc.assert(
      fc.property(inputs, ({ node: n, memory, pods, needed }) => {
        const d = decide(
          view(n, { source: { rebootNeeded: needed }, ...(pods ? { pods } : {}) }),
          memory,
          config,
        );
        if (d.action.kind !== 'patch') return;
        const g = grantFacts(n, capstanProtocol);
        if (d.action.patch.unschedulable === false) expect(g.agentMade).toBe(true);
        if (d.action.patch.unschedulable === true) {
          expect(g.ok && g.needed && g.grantForThisBoot).toBe(true);
          expect(d.action.patch.annotations[k.rebootInProgress] ?? n.annotations[k.rebootInProgress]).toBe(
            'true',
          );
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('acts only in its own phase: pods in Draining, the reboot in Rebooting, a waiting backoff, and always settles', () => {
    fc.assert(
      fc.property(inputs, ({ node: n, memory, pods, needed, force }) => {
        const v = view(n, { source: { rebootNeeded: needed }, ...(pods ? { pods } : {}) });
        const d = decide(v, memory, { ...config, forceReboot: force });
        const named = phaseOf({ view: v, memory, config, grant: grantFacts(n, capstanProtocol) });
        if (d.action.kind === 'evict' || d.action.kind === 'listPods') expect(d.phase).toBe('Draining');
        if (d.action.kind === 'reboot') expect(d.phase).toBe('Rebooting');
        if (d.phase === 'Backoff') expect(d.action).toMatchObject({ kind: 'wait' });
        if (named === 'Rebooting') expect(d).toMatchObject({ phase: 'Rebooting', action: { kind: 'wait' } });
      }),
      { numRuns: 2_000 },
    );
  });
});
