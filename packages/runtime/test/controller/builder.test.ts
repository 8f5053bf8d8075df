import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { type Controller, ControllerBuilder, predicate } from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { ConfigMap, Node, Widget, widget } from '../testing/fixtures.js';

const running: Array<{ cache: InformerCache; controller: Controller }> = [];
afterEach(async () => {
  for (const { cache, controller } of running.splice(0)) {
    await controller.stop();
    await cache.stop();
  }
});

/** A builder on an in-memory cluster and a manual clock, and the keys its controller reconciles. */
function setup() {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [Widget, Node, ConfigMap] });
  const cache = new InformerCache(cluster, { clock, onError: () => {} });
  const builder = new ControllerBuilder(cache, { logger: pino({ level: 'silent' }), clock });
  const keys: string[] = [];
  const start = (b: ControllerBuilder) => {
    const controller = b.build(async (request) => {
      keys.push(request.namespace ? `${request.namespace}/${request.name}` : request.name);
      return undefined;
    });
    cache.start();
    void controller.start();
    running.push({ cache, controller });
    return controller;
  };
  /** Lets informers list and workers run, a virtual millisecond at a time. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await clock.advanceAsync(1);
  };
  return { cluster, builder, keys, start, settle };
}

describe('ControllerBuilder', () => {
  it('builds a named controller from watches alone, every event mapped to one key', async () => {
    const { cluster, builder, keys, start, settle } = setup();
    cluster.seed(Widget, widget('a'), widget('b'));
    cluster.seed(Node, { metadata: { name: 'n1' } });
    const toCluster = () => [{ name: 'cluster' }];
    const controller = start(builder.named('fleet').watches(Widget, toCluster).watches(Node, toCluster));
    expect(controller.name).toBe('fleet');
    await settle();
    // Three objects, one key: the queue folds the events into one reconcile.
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(new Set(keys)).toEqual(new Set(['cluster']));
    const before = keys.length;
    await cluster.create(Node, { metadata: { name: 'n2' } });
    await settle();
    expect(keys.length).toBe(before + 1);
  });

  it('applies an event filter to every source, declared before or after them', async () => {
    const { cluster, builder, keys, start, settle } = setup();
    const web = (name: string, namespace = 'default') =>
      widget(name, namespace, { metadata: { name, namespace, labels: { app: 'web' } } });
    cluster.seed(Widget, web('w1'), widget('plain'));
    cluster.seed(
      Node,
      { metadata: { name: 'web-node', labels: { app: 'web' } } },
      { metadata: { name: 'db-node' } },
    );
    start(
      builder
        .for(Widget)
        .watches(Node, (n) => [{ namespace: 'nodes', name: n.metadata.name ?? '' }])
        .withEventFilter(predicate((o) => o.metadata.labels?.app === 'web')),
    );
    await settle();
    expect([...keys].sort()).toEqual(['default/w1', 'nodes/web-node']);
  });

  it('refuses a controller it cannot name, one that watches nothing, and owns() without for()', () => {
    const { builder } = setup();
    expect(() => builder.watches(Node, () => []).build(async () => undefined)).toThrow(
      'a controller without for(kind) needs named(name)',
    );
    const { builder: empty } = setup();
    expect(() => empty.named('idle').build(async () => undefined)).toThrow(
      'controller idle watches nothing: add for() or watches()',
    );
    const { builder: orphan } = setup();
    expect(() =>
      orphan
        .named('x')
        .owns(ConfigMap)
        .build(async () => undefined),
    ).toThrow('owns(ConfigMap) needs for(kind): the owner kind');
  });
});
