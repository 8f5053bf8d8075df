/** What the Greeting replicas' run is judged by: their Prometheus text, and the Lease as a watch saw it. */
import { type HttpTransport, Lease, type WatchHandle } from '@capstan/runtime/client';
import { LEASE_ID } from './replica.js';

/** The controller's name in metric labels. */
export const CONTROLLER = 'greeting';

// --- Prometheus text -----------------------------------------------------------------------------

interface Sample {
  labels: Record<string, string>;
  value: number;
}

export function samples(text: string, metric: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m || m[1] !== metric) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = l[2] as string;
    found.push({ labels, value: Number(m[3]) });
  }
  return found;
}

/** The value of the one series of `metric` whose labels include `labels`; undefined when absent. */
export function metricValue(
  text: string,
  metric: string,
  labels: Record<string, string>,
): number | undefined {
  const matching = samples(text, metric).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matching.length > 1) throw new Error(`${metric} ${JSON.stringify(labels)} matches several series`);
  return matching[0]?.value;
}

/** All reconciles of the greeting controller, whatever their result. */
export function reconcilesOf(text: string): number {
  return samples(text, 'controller_runtime_reconcile_total')
    .filter((s) => s.labels.controller === CONTROLLER)
    .reduce((sum, s) => sum + s.value, 0);
}

export const successes = (text: string) =>
  metricValue(text, 'controller_runtime_reconcile_total', { controller: CONTROLLER, result: 'success' });
export const leaderStatus = (text: string) =>
  metricValue(text, 'leader_election_master_status', { name: LEASE_ID });

// --- the Lease, as a watch saw it ----------------------------------------------------------------

export interface LeaseRecord {
  /** `Date.now()` when the event arrived. */
  at: number;
  type: string;
  holder: string;
  durationSeconds: number | undefined;
  transitions: number | undefined;
  renewTime: string | undefined;
}

/** Every version of the Lease since before the replicas started, so that no state is missed. */
export class LeaseHistory {
  readonly records: LeaseRecord[] = [];
  readonly problems: string[] = [];
  private handle: WatchHandle | undefined;
  private resourceVersion: string | undefined;
  private stopped = false;

  constructor(
    private readonly transport: HttpTransport,
    private readonly namespace: string,
  ) {}

  async start(): Promise<void> {
    const options = {
      namespace: this.namespace,
      fieldSelector: `metadata.name=${LEASE_ID}`,
      timeoutSeconds: 1800,
      idleTimeoutMs: 0,
      ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
    };
    this.handle = await this.transport.watch(Lease, options, {
      onEvent: (event) => {
        if (event.type === 'ERROR') {
          this.problems.push(`watch error: ${JSON.stringify(event.status)}`);
          return;
        }
        if (event.type === 'BOOKMARK') return;
        const lease = event.object;
        this.resourceVersion = lease.metadata.resourceVersion;
        this.records.push({
          at: Date.now(),
          type: event.type,
          holder: lease.spec?.holderIdentity ?? '',
          durationSeconds: lease.spec?.leaseDurationSeconds,
          transitions: lease.spec?.leaseTransitions,
          renewTime: lease.spec?.renewTime,
        });
      },
      onClose: (error) => {
        if (this.stopped) return;
        this.problems.push(`watch closed (${error?.message ?? 'cleanly'}); resuming`);
        this.start().catch((err: unknown) => this.problems.push(`cannot resume the watch: ${String(err)}`));
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.handle?.stop();
  }

  /** The last version seen. */
  get latest(): LeaseRecord | undefined {
    return this.records.at(-1);
  }

  describe(): string {
    const rows = this.records.map(
      (r) =>
        `  ${new Date(r.at).toISOString()} ${r.type} holder="${r.holder}" duration=${r.durationSeconds} ` +
        `transitions=${r.transitions} renew=${r.renewTime}`,
    );
    return `--- lease ${LEASE_ID} history\n${rows.join('\n')}${
      this.problems.length ? `\n  problems: ${this.problems.join('; ')}` : ''
    }`;
  }
}
