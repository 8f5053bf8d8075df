/** The fake cluster's watches: replay from a revision, initial events, bookmarks, selector transitions. */

import type { ApiStatus, KubeObject, ResourceType, WatchOptions } from '../api/types.js';
import type { FieldSelector, LabelSelector } from '../client/selectors.js';
import type { WatchCallbacks, WatchHandle } from '../transport/transport.js';
import { selectorsOf } from './fake-reads.js';
import { type ClusterState, type HistoryEntry, kindKeyOf } from './fake-state.js';
import { FakeWatch } from './fake-watch.js';

interface WatchFilter {
  readonly kindKey: string;
  readonly namespace: string | undefined;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  /** Only changes after this revision are sent. */
  readonly after: number;
}

/** The open watches of a {@link ClusterState}, which tells the hub of every commit through {@link WatchHub.deliverAll}. */
export class WatchHub {
  private readonly watches = new Map<FakeWatch, WatchFilter>();

  constructor(private readonly state: ClusterState) {}

  /** Sends a committed change to every open watch. */
  deliverAll(entry: HistoryEntry): void {
    for (const [watch, filter] of this.watches) this.deliver(watch, filter, entry);
  }

  /** Sends a BOOKMARK carrying the current resourceVersion to every watch that allows bookmarks. */
  sendBookmarks(): void {
    for (const [watch, filter] of this.watches) {
      if (!watch.allowBookmarks) continue;
      watch.push({ type: 'BOOKMARK', object: this.state.bookmark(this.state.typeOf(filter.kindKey)) });
    }
  }

  /**
   * Ends every open watch: cleanly (no error) or with `error` (as a broken connection would).
   * Returns how many watches were closed.
   */
  dropWatches(error?: Error): number {
    const open = [...this.watches.keys()];
    for (const w of open) w.close(error);
    return open.length;
  }

  /** Number of open watches. */
  openWatches(): number {
    return this.watches.size;
  }

  /** Opens a watch: from now (with synthetic ADDED events), with initial events, or replaying history. */
  open(type: ResourceType, options: WatchOptions, callbacks: WatchCallbacks<KubeObject>): WatchHandle {
    const kind = this.state.kind(type);
    const [labels, fields] = selectorsOf(options);
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    const rvText = options.resourceVersion;
    const fromNow = rvText === undefined || rvText === '' || rvText === '0';
    const start = fromNow ? this.state.revision : this.state.parseRevision(rvText);
    const filter: WatchFilter = {
      kindKey: kindKeyOf(type),
      namespace,
      labels,
      fields,
      after: Math.max(start, this.state.revision),
    };
    const watch = new FakeWatch(
      callbacks,
      this.state.clock,
      (w) => this.watches.delete(w),
      options.allowWatchBookmarks === true,
    );

    if (!fromNow && !options.sendInitialEvents && start < this.state.compactedAt) {
      // Like etcd after compaction: the stream opens, says 410 and ends.
      const status: ApiStatus = {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: this.state.gone(start).message,
      };
      watch.push({ type: 'ERROR', status });
      watch.close();
      return watch;
    }
    this.watches.set(watch, filter);
    if (fromNow || options.sendInitialEvents) {
      // Synthetic ADDED events for the current state, as the server sends for RV unset/'0'.
      for (const key of [...kind.objects.keys()].sort()) {
        const o = kind.objects.get(key) as KubeObject;
        if (this.matches(filter, o)) watch.push({ type: 'ADDED', object: o });
      }
      if (options.sendInitialEvents && watch.allowBookmarks) {
        const b = this.state.bookmark(type);
        b.metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
        watch.push({ type: 'BOOKMARK', object: b });
      }
    } else {
      for (const e of this.state.history) {
        if (e.rv > start) this.deliver(watch, { ...filter, after: start }, e);
      }
    }
    if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0)
      watch.closeAfter(options.timeoutSeconds);
    return watch;
  }

  private matches(filter: WatchFilter, o: KubeObject): boolean {
    if (filter.namespace !== undefined && o.metadata.namespace !== filter.namespace) return false;
    return filter.labels.matches(o.metadata.labels) && filter.fields.matches(o);
  }

  /** Sends one change to one watch, turning selector transitions into ADDED/DELETED as the server does. */
  private deliver(watch: FakeWatch, filter: WatchFilter, e: HistoryEntry): void {
    if (e.kindKey !== filter.kindKey || e.rv <= filter.after) return;
    const now = this.matches(filter, e.object);
    if (e.type !== 'MODIFIED') {
      if (now) watch.push({ type: e.type, object: e.object });
      return;
    }
    const before = this.matches(filter, e.prev as KubeObject);
    if (before && now) watch.push({ type: 'MODIFIED', object: e.object });
    else if (now) watch.push({ type: 'ADDED', object: e.object });
    else if (before) watch.push({ type: 'DELETED', object: e.object });
  }
}
