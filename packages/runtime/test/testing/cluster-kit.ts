/** What the FakeCluster tests share: a fresh cluster, rejections as ApiErrors, a watch recorder. */
import { expect } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject, WatchEvent } from '../../src/api/types.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { ConfigMap, Node, Widget as WidgetType } from './fixtures.js';

/** A fresh in-memory cluster (Widgets, ConfigMaps, Nodes) on a manual clock. */
export function setup() {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType, ConfigMap, Node] });
  return { clock, cluster };
}

export async function rejection(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a rejection');
}

export function recordWatch() {
  const events: WatchEvent<KubeObject>[] = [];
  const closes: Array<Error | undefined> = [];
  return {
    events,
    closes,
    callbacks: {
      onEvent: (e: WatchEvent<KubeObject>) => events.push(e),
      onClose: (e?: Error) => closes.push(e),
    },
  };
}
