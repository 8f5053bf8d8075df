/**
 * A kind the server does not serve (404: its CRD is missing or deleted) stops the informer: said
 * once, not as an error, the store emptied, polled every 2 s, started again once served.
 */
import { describe, expect, it } from 'vitest';
import { apiError } from '../../src/api/errors.js';
import { Reflector, type ReflectorErrorInfo, type StoreChange } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

describe('Reflector for a kind not served', () => {
  it('says it once (not as an error), asks every 2 s, and syncs once the kind is served', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
    let served = false;
    let asked = 0;
    cluster.addFault(() => {
      if (served) return undefined;
      asked++;
      return apiError(404, 'NotFound', 'the server could not find the requested resource');
    });
    cluster.seed(WidgetType, widget('a'));
    const errors: ReflectorErrorInfo[] = [];
    const servedChanges: boolean[] = [];
    const reflector = new Reflector<Widget>(cluster, WidgetType, {
      clock,
      onError: (_e, info) => errors.push(info),
      onServedChange: (s) => servedChanges.push(s),
      random: () => 0.5,
    });
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.kindServed()).toBe(false);
    await reflector.whenSyncedOrUnserved(); // resolves: not served
    await clock.advanceAsync(20_000);
    expect(asked).toBeGreaterThanOrEqual(10); // every 2 s, not a backoff growing to 30 s
    expect(asked).toBeLessThanOrEqual(12);
    expect(errors).toEqual([]);
    expect(servedChanges).toEqual([false]);
    expect(reflector.failingForMs()).toBe(0); // stopped, not failing
    served = true;
    await clock.advanceAsync(2_000);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.kindServed()).toBe(true);
    expect(servedChanges).toEqual([false, true]);
    expect(reflector.store.keys()).toEqual(['default/a']);
    await reflector.stop();
  });

  it('empties its store when a served kind goes away, and lists again when it is back', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
    let gone = false;
    cluster.addFault(() => (gone ? apiError(404, 'NotFound', 'the server could not find it') : undefined));
    cluster.seed(WidgetType, widget('a'));
    const changes: StoreChange<Widget>[] = [];
    const errors: Error[] = [];
    const reflector = new Reflector<Widget>(cluster, WidgetType, {
      clock,
      onChange: (c) => changes.push(c),
      onError: (e) => errors.push(e),
      random: () => 0.5,
    });
    reflector.start();
    await reflector.whenSynced();
    expect(reflector.store.keys()).toEqual(['default/a']);
    // The CRD goes without its objects' deletions reaching us (the watch simply ends).
    gone = true;
    cluster.dropWatches();
    await clock.advanceAsync(10_000);
    expect(reflector.kindServed()).toBe(false);
    expect(reflector.store.keys()).toEqual([]);
    expect(changes.at(-1)).toMatchObject({ type: 'delete', finalStateUnknown: true });
    expect(errors).toEqual([]);
    gone = false;
    await clock.advanceAsync(2_000);
    expect(reflector.kindServed()).toBe(true);
    expect(reflector.store.keys()).toEqual(['default/a']);
    await reflector.stop();
  });
});
