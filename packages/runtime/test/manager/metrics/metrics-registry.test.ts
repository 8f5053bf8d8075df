import { Counter, register as globalRegistry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { MetricsRegistry } from '../../../src/manager/metrics-registry.js';
import { ManualClock } from '../../../src/testing/manual-clock.js';
import { WorkQueue } from '../../../src/workqueue/queue.js';
import { sample } from '../prom-text.js';

describe('MetricsRegistry controller metrics', () => {
  it('starts every reconcile result at zero and counts each outcome', async () => {
    const metrics = new MetricsRegistry();
    const c = metrics.controllerMetrics('widgets');
    let text = await metrics.text();
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(sample(text, 'controller_runtime_reconcile_total', { controller: 'widgets', result })).toBe(0);
    }
    expect(sample(text, 'controller_runtime_reconcile_errors_total', { controller: 'widgets' })).toBe(0);

    c.reconciled('success', 0.02);
    c.reconciled('success', 0.3);
    c.reconciled('requeue_after', 2);
    c.reconciled('error', 0.001);
    c.error();
    c.terminalError();
    c.terminalError();
    c.panic();
    c.maxConcurrent(4);
    c.activeWorkers(1);
    c.activeWorkers(1);
    c.activeWorkers(-1);

    text = await metrics.text();
    const l = { controller: 'widgets' };
    expect(sample(text, 'controller_runtime_reconcile_total', { ...l, result: 'success' })).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_total', { ...l, result: 'requeue_after' })).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total', { ...l, result: 'error' })).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_total', { ...l, result: 'requeue' })).toBe(0);
    expect(sample(text, 'controller_runtime_reconcile_errors_total', l)).toBe(1);
    expect(sample(text, 'controller_runtime_terminal_reconcile_errors_total', l)).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_panics_total', l)).toBe(1);
    expect(sample(text, 'controller_runtime_max_concurrent_reconciles', l)).toBe(4);
    expect(sample(text, 'controller_runtime_active_workers', l)).toBe(1);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_count', l)).toBe(4);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_sum', l)).toBeCloseTo(2.321, 6);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket', { ...l, le: '0.025' })).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket', { ...l, le: '0.3' })).toBe(3);
    expect(sample(text, 'controller_runtime_reconcile_time_seconds_bucket', { ...l, le: '+Inf' })).toBe(4);
  });

  it('binds twice without resetting what was counted', async () => {
    const metrics = new MetricsRegistry();
    metrics.controllerMetrics('a').activeWorkers(2);
    metrics.controllerMetrics('a').reconciled('success', 1);
    metrics.workQueueMetrics('q').onDepth(5);
    metrics.workQueueMetrics('q').onAdd();
    const text = await metrics.text();
    expect(sample(text, 'controller_runtime_active_workers', { controller: 'a' })).toBe(2);
    expect(sample(text, 'controller_runtime_reconcile_total', { controller: 'a', result: 'success' })).toBe(
      1,
    );
    expect(sample(text, 'workqueue_depth', { name: 'q', controller: 'q' })).toBe(5);
  });

  it('keeps controllers apart by label', async () => {
    const metrics = new MetricsRegistry();
    metrics.controllerMetrics('a').reconciled('success', 1);
    metrics.controllerMetrics('b').error();
    const text = await metrics.text();
    expect(sample(text, 'controller_runtime_reconcile_total', { controller: 'a', result: 'success' })).toBe(
      1,
    );
    expect(sample(text, 'controller_runtime_reconcile_total', { controller: 'b', result: 'success' })).toBe(
      0,
    );
    expect(sample(text, 'controller_runtime_reconcile_errors_total', { controller: 'a' })).toBe(0);
    expect(sample(text, 'controller_runtime_reconcile_errors_total', { controller: 'b' })).toBe(1);
  });
});

describe('MetricsRegistry workqueue metrics', () => {
  it('binds the WorkQueueMetrics callbacks to the workqueue series', async () => {
    const metrics = new MetricsRegistry();
    const q = metrics.workQueueMetrics('widgets', 'widgets-controller');
    q.onAdd();
    q.onAdd();
    q.onAdd();
    q.onDepth(3);
    q.onDepth(2);
    q.onQueueLatency(0.5);
    q.onWorkDuration(0.05);
    q.onWorkDuration(0.15);
    q.onRetry();
    const text = await metrics.text();
    const l = { name: 'widgets', controller: 'widgets-controller' };
    expect(sample(text, 'workqueue_adds_total', l)).toBe(3);
    expect(sample(text, 'workqueue_depth', l)).toBe(2);
    expect(sample(text, 'workqueue_retries_total', l)).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_count', l)).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_sum', l)).toBe(0.5);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket', { ...l, le: '1' })).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_bucket', { ...l, le: '0.1' })).toBe(0);
    expect(sample(text, 'workqueue_work_duration_seconds_count', l)).toBe(2);
    expect(sample(text, 'workqueue_work_duration_seconds_sum', l)).toBeCloseTo(0.2, 9);
  });

  it('defaults the controller label to the queue name', async () => {
    const metrics = new MetricsRegistry();
    metrics.workQueueMetrics('widgets').onAdd();
    const text = await metrics.text();
    expect(sample(text, 'workqueue_adds_total', { name: 'widgets', controller: 'widgets' })).toBe(1);
  });

  it('polls registered queues for unfinished work at scrape time', async () => {
    const metrics = new MetricsRegistry();
    let unfinished = { totalSeconds: 0, longestSeconds: 0 };
    const unregister = metrics.registerQueue({ name: 'widgets', unfinishedWork: () => unfinished });
    let text = await metrics.text();
    const l = { name: 'widgets', controller: 'widgets' };
    expect(sample(text, 'workqueue_unfinished_work_seconds', l)).toBe(0);
    unfinished = { totalSeconds: 7.5, longestSeconds: 5 };
    text = await metrics.text();
    expect(sample(text, 'workqueue_unfinished_work_seconds', l)).toBe(7.5);
    expect(sample(text, 'workqueue_longest_running_processor_seconds', l)).toBe(5);
    unregister();
    text = await metrics.text();
    expect(sample(text, 'workqueue_unfinished_work_seconds', l)).toBeUndefined();
  });

  it('measures a real WorkQueue end to end', async () => {
    const clock = new ManualClock();
    const metrics = new MetricsRegistry();
    const queue = new WorkQueue<string>({
      name: 'pods',
      clock,
      metrics: metrics.workQueueMetrics('pods', 'pod-controller'),
    });
    metrics.registerQueue(queue, 'pod-controller');
    queue.add('a');
    queue.add('b');
    queue.add('a'); // collapses into the pending 'a'
    clock.advance(2000);
    const got = await queue.get();
    if (got.shutdown) throw new Error('queue shut down');
    clock.advance(3000);
    const l = { name: 'pods', controller: 'pod-controller' };
    let text = await metrics.text();
    expect(sample(text, 'workqueue_adds_total', l)).toBe(2);
    expect(sample(text, 'workqueue_depth', l)).toBe(1);
    expect(sample(text, 'workqueue_queue_duration_seconds_sum', l)).toBe(2);
    expect(sample(text, 'workqueue_unfinished_work_seconds', l)).toBe(3);
    expect(sample(text, 'workqueue_longest_running_processor_seconds', l)).toBe(3);
    queue.done(got.key);
    text = await metrics.text();
    expect(sample(text, 'workqueue_work_duration_seconds_sum', l)).toBe(3);
    expect(sample(text, 'workqueue_unfinished_work_seconds', l)).toBe(0);
  });
});

describe('MetricsRegistry leader, REST client and custom metrics', () => {
  it('reports leader status per lease', async () => {
    const metrics = new MetricsRegistry();
    metrics.setLeader('capstan-coordinator', true);
    let text = await metrics.text();
    expect(sample(text, 'leader_election_master_status', { name: 'capstan-coordinator' })).toBe(1);
    metrics.setLeader('capstan-coordinator', false);
    text = await metrics.text();
    expect(sample(text, 'leader_election_master_status', { name: 'capstan-coordinator' })).toBe(0);
  });

  it('counts REST requests by code, method and host', async () => {
    const metrics = new MetricsRegistry();
    metrics.onRestRequest({ method: 'get', code: '200', host: 'api:6443' });
    metrics.onRestRequest({ method: 'GET', code: 200, host: 'api:6443' });
    metrics.onRestRequest({ method: 'PUT', code: '409', host: 'api:6443' });
    const text = await metrics.text();
    expect(sample(text, 'rest_client_requests_total', { code: '200', method: 'GET', host: 'api:6443' })).toBe(
      2,
    );
    expect(sample(text, 'rest_client_requests_total', { code: '409', method: 'PUT', host: 'api:6443' })).toBe(
      1,
    );
  });

  it('exposes its own registry for operator metrics, apart from the global one', async () => {
    const metrics = new MetricsRegistry();
    const resized = new Counter({
      name: 'widgets_resized_total',
      help: 'resizes',
      registers: [metrics.registry],
    });
    resized.inc(5);
    expect(sample(await metrics.text(), 'widgets_resized_total')).toBe(5);
    expect(await globalRegistry.getSingleMetric('controller_runtime_reconcile_total')).toBeUndefined();
    // A second registry in the same process does not clash.
    const other = new MetricsRegistry();
    expect(sample(await other.text(), 'widgets_resized_total')).toBeUndefined();
    expect(metrics.contentType).toContain('text/plain');
  });

  it('serves the process and Node.js metrics by default, and leaves them out on request', async () => {
    const text = await new MetricsRegistry().text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_heap_size_used_bytes');
    const bare = await new MetricsRegistry({ defaultMetrics: false }).text();
    expect(bare).not.toContain('process_');
    expect(bare).not.toContain('nodejs_');
  });

  it('loads the default metrics in the background: on the registry once they are registered', async () => {
    const metrics = new MetricsRegistry();
    // Not there synchronously (their modules load after construction), but a scrape waits for them.
    expect(metrics.registry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeUndefined();
    await metrics.defaultMetricsRegistered();
    expect(metrics.registry.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeDefined();
    await new MetricsRegistry({ defaultMetrics: false }).defaultMetricsRegistered(); // resolves at once
  });

  it('registers the default metrics by itself a second after construction, off the start-up path', () => {
    vi.useFakeTimers();
    try {
      const metrics = new MetricsRegistry();
      vi.advanceTimersByTime(999);
      expect(metrics.registry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
      vi.advanceTimersByTime(1);
      expect(metrics.registry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });
});
