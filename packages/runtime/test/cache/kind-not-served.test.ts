/** A kind the server does not serve (404: its CRD is missing) is waited for, said once, polled. */
import { describe, expect, it } from 'vitest';
import { apiError } from '../../src/api/errors.js';
import { Reflector, type ReflectorErrorInfo } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

describe('Reflector for a kind not served', () => {
  it('reports it once, asks every 2 s, and syncs once the kind is served', async () => {
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
    const reflector = new Reflector<Widget>(cluster, WidgetType, {
      clock,
      onError: (_e, info) => errors.push(info),
      random: () => 0.5,
    });
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.kindServed()).toBe(false);
    await reflector.whenSyncedOrUnserved(); // resolves: not served
    await clock.advanceAsync(20_000);
    expect(asked).toBeGreaterThanOrEqual(10); // every 2 s, not a backoff growing to 30 s
    expect(asked).toBeLessThanOrEqual(12);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.retryInMs).toBe(2_000);
    served = true;
    await clock.advanceAsync(2_000);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.kindServed()).toBe(true);
    expect(reflector.store.keys()).toEqual(['default/a']);
    await reflector.stop();
  });
});
