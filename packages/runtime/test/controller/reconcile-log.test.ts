/**
 * The reconcile context's logger is built lazily (most reconciles log nothing) but still carries
 * the controller, the object and the reconcile's own id on every line.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client } from '../../src/client/index.js';
import { ControllerBuilder, type ReconcileContext } from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { GizmoType } from './gizmo.js';

describe('the reconcile context', () => {
  it("logs with controller, namespace, name and this reconcile's id; ids differ per reconcile", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    const client = new Client(cluster);
    const cache = new InformerCache(cluster, { clock });
    const seen: string[] = [];
    const controller = new ControllerBuilder(cache, { logger: pino({ level: 'info' }, sink), clock }, {})
      .named('gizmo-logs')
      .for(GizmoType)
      .build(async (request, ctx: ReconcileContext) => {
        seen.push(ctx.reconcileId);
        if (request.name === 'loud') ctx.log.info('reconciling');
        return undefined;
      });
    cache.start();
    void controller.start();
    try {
      for (const name of ['quiet', 'loud'])
        await client.create(GizmoType, { metadata: { name, namespace: 'ns' }, spec: { size: 1 } });
      await clock.advanceUntil(() => seen.length >= 2 && lines.some((l) => l.msg === 'reconciling'));
      expect(new Set(seen).size).toBe(seen.length);
      // The reconciles' own lines (the controller logs its start too).
      const own = lines.filter((l) => l.msg === 'reconciling');
      expect(own).toHaveLength(1);
      expect(own[0]).toMatchObject({
        controller: 'gizmo-logs',
        namespace: 'ns',
        name: 'loud',
        msg: 'reconciling',
      });
      expect(seen).toContain(own[0]?.reconcileId);
    } finally {
      await clock.advanceUntilSettled(controller.stop());
      await cache.stop();
    }
  });
});
