/**
 * `waitOnList` on scripted lists and watches: done on the list needs no watch; a watch's events
 * (added, modified, deleted) are judged as they come, from the list's resourceVersion; a watch
 * that ends early lists again; the deadline fails saying what was awaited.
 */
import { describe, expect, it } from 'vitest';
import type { ApiAnswer } from '../src/http.js';
import { type Listed, type WatchUntil, waitOnList } from '../src/list-watch-wait.js';

interface Pod extends Listed {
  running: boolean;
}

const pod = (name: string, running: boolean): Pod => ({ metadata: { name }, running });

/** Scripted lists (one per call) and watches (events per call, then 'ended' unless judged done). */
function script(lists: Pod[][], watches: Array<Array<[string, Pod]>>) {
  const calls: string[] = [];
  let listed = 0;
  let watched = 0;
  const request = async (_method: 'GET', path: string): Promise<ApiAnswer> => {
    calls.push(`list ${path}`);
    const items = lists[Math.min(listed++, lists.length - 1)] ?? [];
    return { status: 200, body: { items, metadata: { resourceVersion: `rv${listed}` } } };
  };
  const watchUntil: WatchUntil = async (path, query, onEvent) => {
    calls.push(`watch ${path} from ${String(query.resourceVersion)} (${String(query.fieldSelector)})`);
    for (const [type, object] of watches[watched++] ?? []) if (onEvent(type, object)) return 'done';
    return 'ended';
  };
  return { calls, request, watchUntil };
}

const allRunning = (pods: Pod[]) => pods.every((p) => p.running);

describe('waitOnList', () => {
  it('ends on the list when it already holds, with no watch', async () => {
    const s = script([[pod('a', true)]], []);
    await waitOnList(s.request, s.watchUntil, 'pods', '/api/v1/pods', 'spec.nodeName=n1', allRunning, 1_000);
    expect(s.calls).toEqual(['list /api/v1/pods?fieldSelector=spec.nodeName%3Dn1']);
  });

  it("judges the watch's events from the list's resourceVersion, deletions included", async () => {
    const s = script(
      [[pod('a', false), pod('b', false)]],
      [
        [
          ['MODIFIED', pod('a', true)],
          ['BOOKMARK', pod('b', true)], // not an object change: b stays as listed
          ['ADDED', pod('c', false)],
          ['DELETED', pod('c', false)],
          ['DELETED', pod('b', false)],
        ],
      ],
    );
    await waitOnList(s.request, s.watchUntil, 'pods', '/api/v1/pods', 'x=y', allRunning, 1_000);
    expect(s.calls).toEqual(['list /api/v1/pods?fieldSelector=x%3Dy', 'watch /api/v1/pods from rv1 (x=y)']);
  });

  it('lists again when a watch ends before the state is reached', async () => {
    const s = script(
      [[pod('a', false)], [pod('a', true)]],
      [[['MODIFIED', pod('a', false)]]], // ends with a still not running
    );
    await waitOnList(s.request, s.watchUntil, 'pods', '/p', 'x=y', allRunning, 5_000);
    expect(s.calls).toEqual([
      'list /p?fieldSelector=x%3Dy',
      'watch /p from rv1 (x=y)',
      'list /p?fieldSelector=x%3Dy',
    ]);
  });

  it('fails after the deadline saying what it waited for', async () => {
    const s = script([[pod('a', false)]], []);
    await expect(
      waitOnList(s.request, s.watchUntil, 'the pods of node n1 Running again', '/p', 'x=y', allRunning, 150),
    ).rejects.toThrow('the pods of node n1 Running again: not within 150 ms');
  });

  it('says a refused list', async () => {
    const s = script([], []);
    const refused = async (): Promise<ApiAnswer> => ({ status: 403, body: { reason: 'Forbidden' } });
    await expect(waitOnList(refused, s.watchUntil, 'nodes', '/n', 'x=y', allRunning, 1_000)).rejects.toThrow(
      'nodes: listing /n: {"reason":"Forbidden"}',
    );
  });
});
