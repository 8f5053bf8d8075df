/** The world the leader election unit tests run in: electors on one FakeCluster and ManualClock. */
import { expect } from 'vitest';
import { Lease } from '../../../src/client/builtin.js';
import {
  LeaderElector,
  type LeaderElectorOptions,
} from '../../../src/manager/leaderelection/leader-elector.js';
import { FakeCluster } from '../../../src/testing/fake-cluster.js';
import { ManualClock } from '../../../src/testing/manual-clock.js';
import type { ApiTransport } from '../../../src/transport/transport.js';
import { type LeaseOutage, leaseOutage } from './lease-outage.js';

export const NS = 'capstan-system';
export const NAME = 'widget-operator-lock';
export const MICROTIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export interface Interval {
  who: string;
  start: number;
  end?: number;
  lost?: boolean;
}

/** A set of electors on one cluster and clock, recording when each believed it led. */
export function world(options: { latencyMs?: number } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const cluster = new FakeCluster({ clock, kinds: [Lease], latencyMs: options.latencyMs ?? 0 });
  const intervals: Interval[] = [];
  const newLeaders = new Map<string, string[]>();
  const signals = new Map<string, AbortSignal[]>();
  const outages = new Map<LeaderElector, LeaseOutage>();

  function elector(
    who: string,
    extra: Partial<LeaderElectorOptions> & { transport?: ApiTransport } = {},
  ): LeaderElector {
    newLeaders.set(who, []);
    signals.set(who, []);
    const outage = leaseOutage(extra.transport ?? cluster);
    const elector = new LeaderElector(outage.transport, {
      name: NAME,
      namespace: NS,
      identity: who,
      clock,
      jitterFactor: 0,
      onStartedLeading: (signal) => {
        intervals.push({ who, start: clock.now() });
        signals.get(who)?.push(signal);
      },
      onStoppedLeading: ({ lost }) => {
        const open = intervals.findLast((i) => i.who === who && i.end === undefined);
        if (!open) throw new Error(`${who} stopped leading without having started`);
        open.end = clock.now();
        open.lost = lost;
      },
      onNewLeader: (id) => newLeaders.get(who)?.push(id),
      ...extra,
    });
    outages.set(elector, outage);
    return elector;
  }

  /** Cuts `e` off from its Lease, so its renewals fail, until {@link restore}. */
  const cut = (e: LeaderElector | undefined) => (e ? outages.get(e)?.cut() : undefined);
  const restore = (e: LeaderElector | undefined) => (e ? outages.get(e)?.restore() : undefined);

  const lease = () => cluster.getObject(Lease, { namespace: NS, name: NAME });

  /** Leading intervals never overlap (touching is allowed only if one ends before the other starts). */
  function assertNoOverlap() {
    const sorted = [...intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1] as Interval;
      const cur = sorted[i] as Interval;
      expect(prev.end, `${prev.who} still leads when ${cur.who} starts at ${cur.start}`).toBeDefined();
      expect(prev.end as number).toBeLessThanOrEqual(cur.start);
    }
  }

  /** Advances in small steps, checking at every step that at most one elector leads. */
  async function run(ms: number, electors: LeaderElector[], step = 100) {
    for (let t = 0; t < ms; t += step) {
      await clock.advanceAsync(Math.min(step, ms - t));
      expect(electors.filter((e) => e.isLeader()).length).toBeLessThanOrEqual(1);
    }
  }

  return {
    clock,
    cluster,
    intervals,
    newLeaders,
    signals,
    elector,
    cut,
    restore,
    lease,
    assertNoOverlap,
    run,
  };
}
