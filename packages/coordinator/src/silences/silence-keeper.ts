/**
 * Keeps Alertmanager's silences in step with the reboots (`silence-plan.ts` decides): after each
 * round, for every group with `spec.silences`, it lists the coordinator's own silences (marked by
 * `createdBy` and their comment), then creates, extends and expires. It runs beside coordination,
 * never in its way: one sync at a time, not awaited by the round, each request with a timeout; a
 * failure is logged and retried at the next round.
 */
import { coordinatorKeys, parseTimestamp } from '@capstan/reboot-protocol';
import { type Client, isJsonObject, type Logger, readDuration } from '@capstan/runtime';
import type { RebootGroup } from '../api/reboot-group.js';
import type { NodeSnapshot } from '../decide/node-snapshot.js';
import { endpointAuth, requestJson } from '../gates/monitoring-http.js';
import { COORDINATOR_MANAGER } from '../manager-name.js';
import {
  type OwnSilence,
  planSilences,
  type SilenceAction,
  type SilencedNode,
  silenceComment,
} from './silence-plan.js';

/** The `createdBy` of the coordinator's silences. */
export const SILENCE_CREATOR = COORDINATOR_MANAGER;
const DEFAULT_MAX_MS = 60 * 60_000;
const TIMEOUT_MS = 10_000;

type SilenceSpec = NonNullable<RebootGroup['spec']['silences']>;

/** See the file comment. */
export class SilenceKeeper {
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: Client,
    private readonly logger?: Logger,
  ) {}

  /** Starts a sync unless one is still running; answers it (the round does not wait). */
  sync(
    groups: readonly RebootGroup[],
    nodes: readonly NodeSnapshot[],
    membership: Readonly<Record<string, string>>,
    now: number,
  ): Promise<void> {
    if (this.running) return this.running;
    this.running = this.syncAll(groups, nodes, membership, now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async syncAll(
    groups: readonly RebootGroup[],
    nodes: readonly NodeSnapshot[],
    membership: Readonly<Record<string, string>>,
    now: number,
  ): Promise<void> {
    // Groups sharing an Alertmanager are synced together: each sees the others' silences as its own.
    const byUrl = new Map<string, { spec: SilenceSpec; groups: RebootGroup[] }>();
    for (const g of groups) {
      const spec = g.spec?.silences;
      if (!isJsonObject(spec) || typeof spec.url !== 'string') continue;
      const entry = byUrl.get(spec.url) ?? { spec, groups: [] };
      entry.groups.push(g);
      byUrl.set(spec.url, entry);
    }
    await Promise.all(
      [...byUrl.values()].map(({ spec, groups: gs }) =>
        this.syncOne(spec, gs, nodes, membership, now).catch((err: unknown) =>
          this.logger?.warn({ alertmanager: spec.url, err: String(err) }, 'silences not synced'),
        ),
      ),
    );
  }

  private async syncOne(
    spec: SilenceSpec,
    groups: readonly RebootGroup[],
    nodes: readonly NodeSnapshot[],
    membership: Readonly<Record<string, string>>,
    now: number,
  ): Promise<void> {
    const wanted: SilencedNode[] = [];
    for (const g of groups) {
      const name = g.metadata.name ?? '';
      const s = g.spec.silences as SilenceSpec;
      for (const n of nodes) {
        const grantedAt = parseTimestamp(n.annotations[coordinatorKeys.grantedAt]);
        if (membership[n.name] !== name || grantedAt === undefined) continue;
        const maxDurationMs = (s.maxDuration ? readDuration(s.maxDuration) : undefined) ?? DEFAULT_MAX_MS;
        wanted.push({ node: n.name, group: name, grantedAt, matchers: s.matchers, maxDurationMs });
      }
    }
    const auth = await endpointAuth(this.client, spec);
    const listed = await requestJson(spec.url, 'api/v2/silences', { auth, timeoutMs: TIMEOUT_MS });
    const actions = planSilences(wanted, ownSilences(listed), now);
    for (const action of actions) {
      const [path, how] = request(action, now);
      await requestJson(spec.url, path, { ...how, auth, timeoutMs: TIMEOUT_MS });
      this.logger?.info({ node: action.node, silence: action.kind }, 'alertmanager silence');
    }
  }
}

/** The path, method and body of one action. */
function request(a: SilenceAction, now: number): [string, { method: string; body?: unknown }] {
  if (a.kind === 'expire') return [`api/v2/silence/${encodeURIComponent(a.id)}`, { method: 'DELETE' }];
  const body = {
    ...(a.kind === 'extend' ? { id: a.id } : {}),
    matchers: a.matchers,
    startsAt: new Date(now).toISOString(),
    endsAt: new Date(a.endsAt).toISOString(),
    createdBy: SILENCE_CREATOR,
    comment: silenceComment(a.node, a.group),
  };
  return ['api/v2/silences', { method: 'POST', body }];
}

/** The coordinator's silences that are active or pending, by the node their comment names. */
function ownSilences(listed: unknown): OwnSilence[] {
  if (!Array.isArray(listed)) throw new Error('Alertmanager listed silences that are not a list');
  const own: OwnSilence[] = [];
  for (const s of listed) {
    if (!isJsonObject(s) || s.createdBy !== SILENCE_CREATOR) continue;
    const state = isJsonObject(s.status) ? s.status.state : undefined;
    const node = /node=(\S+)/.exec(String(s.comment ?? ''))?.[1];
    if (state === 'expired' || node === undefined || typeof s.id !== 'string') continue;
    own.push({ id: s.id, node, endsAt: Date.parse(String(s.endsAt)) });
  }
  return own;
}
