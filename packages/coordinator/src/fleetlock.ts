/**
 * FleetLock (Fedora CoreOS Zincati's reboot lock protocol) served from the same budget as the
 * annotation protocol.
 *
 * A FleetLock client does not get a separate semaphore: its pre-reboot becomes an annotation-level
 * request on its Node (`reboot-needed: "true"` plus {@link FLEETLOCK_HOLDER_KEY} naming the client),
 * which the planner queues, schedules and grants like any agent's request, within the group's
 * budget, in FIFO order, behind lower-order groups and inside windows. The server answers 200 once
 * the node holds the grant (`reboot-ok`); a request not granted within the wait is withdrawn and
 * answered `failed_lock_semaphore_full` (the client retries, keeping its place in line:
 * `fleetlock-waiting.ts`). Re-asking by the holder is 200. Steady-state by the holder withdraws the request:
 * after a reboot (new boot ID) the planner verifies and releases as usual; without a reboot the
 * grant is abandoned and the slot freed at once. Steady-state by anyone else changes nothing and
 * is 200, as the protocol demands.
 *
 * Clients map to Nodes through `status.nodeInfo.machineID` (`fleetlock-clients.ts`). Requests are
 * answered from the cache where it is current: a steady-state by a client that holds nothing
 * (by the cache, which has seen the server's own writes to the node) needs no API call. The
 * FleetLock group names a RebootGroup; `default` names the coordinator's default group; a client whose node
 * belongs to another group is refused (`failed_group_mismatch`). The group is mandatory: a request
 * without one is refused (`failed_missing_group`) unless the lenient form is allowed
 * (`--fleetlock-allow-missing-group`), which takes it as `default`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { coordinatorKeys, FALSE, formatTimestamp, TRUE } from '@capstan/reboot-protocol';
import { type BoundSeries, type Client, type Clock, isNotFound, type Logger } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import { parseBindAddress, type Runnable } from '@capstan/runtime/manager';
import {
  FLEETLOCK_CORDONED_KEY,
  FLEETLOCK_DRAINED_KEY,
  FLEETLOCK_HOLDER_KEY,
} from './decide/fleetlock-hooks.js';
import { ClientDirectory, OwnWrites } from './fleetlock-clients.js';
import { FleetLockDrainer, uncordonEdit } from './fleetlock-drain.js';
import { editNode, type NodeChange } from './fleetlock-node-edit.js';
import {
  admit,
  bodyTooLarge,
  endpointOf,
  FLEETLOCK_DEFAULT_GROUP,
  type FleetLockEndpoint,
  FleetLockRefusal as HttpError,
  MAX_BODY_BYTES,
  OK_ANSWER,
  type PreparedAnswer,
  parseParams,
  prepareAnswer,
} from './fleetlock-request.js';
import { WaitingClients } from './fleetlock-waiting.js';
import type { CoordinatorMetrics } from './metrics.js';
import type { PlannerService } from './planner-service.js';

export { FLEETLOCK_DEFAULT_GROUP, type FleetLockError } from './fleetlock-request.js';
export { FLEETLOCK_CORDONED_KEY, FLEETLOCK_DRAINED_KEY, FLEETLOCK_HOLDER_KEY };

/** How often a waiting pre-reboot looks at its node (and moves its drain a step). */
const POLL_MS = 50;

/** What the server needs. */
export interface FleetLockDeps {
  client: Client;
  /** Which group a node is in and why it waits: the planner's answers, read from the cache. */
  planner: PlannerService;
  clock: Clock;
  metrics?: CoordinatorMetrics;
  logger?: Logger;
}

/** The FleetLock HTTP server, as a manager runnable (leader-only: it writes grants' requests). */
export class FleetLockServer implements Runnable {
  readonly name = 'fleetlock';
  private readonly waitMs: number;
  private readonly allowMissingGroup: boolean;
  private portValue: number | undefined;
  private readonly directory = new ClientDirectory();
  private readonly writes = new OwnWrites();
  private readonly waiting = new WaitingClients();
  private readonly drainer: FleetLockDrainer;
  /**
   * A node by name as the cache holds it, when every node is the coordinator's (else undefined:
   * the selector's list decides). Bound once, as {@link managedNodes}: both run per request.
   */
  private readonly currentNode = async (name: string): Promise<Node | undefined> => {
    if (!this.deps.planner.managesAllNodes) return undefined;
    try {
      return await this.deps.client.get(Node, { name });
    } catch {
      return undefined; // gone, or unreadable: the list decides
    }
  };
  private readonly managedNodes = () => this.deps.planner.readNodes(false);
  /** The `ok` series of each endpoint, bound once (one is counted per request). */
  private readonly answered: Partial<Record<FleetLockEndpoint, BoundSeries>>;
  private readyResolve!: (port: number) => void;
  /** Resolves with the port once the server listens. */
  readonly ready: Promise<number> = new Promise((resolve) => {
    this.readyResolve = resolve;
  });

  constructor(
    private readonly bindAddress: string,
    private readonly deps: FleetLockDeps,
    options: { waitMs?: number | undefined; allowMissingGroup?: boolean | undefined } = {},
  ) {
    this.waitMs = options.waitMs ?? 5000;
    const { protocol } = deps.planner;
    this.drainer = new FleetLockDrainer({
      client: deps.client,
      clock: deps.clock,
      writes: this.writes,
      keys: { beforeReboot: protocol.labels.beforeReboot, rebootOk: protocol.annotations.rebootOk },
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
    });
    this.allowMissingGroup = options.allowMissingGroup === true;
    const counter = deps.metrics?.fleetlockRequests;
    this.answered = counter
      ? {
          'pre-reboot': counter.bind({ endpoint: 'pre-reboot', result: 'ok' }),
          'steady-state': counter.bind({ endpoint: 'steady-state', result: 'ok' }),
        }
      : {};
    if (!parseBindAddress(bindAddress))
      throw new Error(`FleetLock needs a bind address, got "${bindAddress}"`);
  }

  /** The port listened on, once started. */
  get port(): number | undefined {
    return this.portValue;
  }

  async start(signal: AbortSignal): Promise<void> {
    const address = parseBindAddress(this.bindAddress);
    if (!address || signal.aborted) return;
    const server = createServer((req, res) => this.handle(req, res, signal));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => resolve());
    });
    this.portValue = (server.address() as AddressInfo).port;
    this.deps.logger?.info({ port: this.portValue }, 'fleetlock listening');
    this.readyResolve(this.portValue);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * One request: refused on its path, method or header before its body is read; otherwise the
   * body is read (at most 64 KiB), parsed and answered. A steady-state from a client that holds
   * nothing is answered from the cache in the same turn of the event loop it arrived in.
   */
  private handle(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): void {
    const admitted = admit(req.url, req.method, req.headers['fleet-lock-protocol']);
    if ('refusal' in admitted) {
      this.refuse(res, endpointOf(req.url), admitted.refusal);
      return;
    }
    const { endpoint } = admitted;
    readBody(req, (tooLarge, text) => {
      if (tooLarge) {
        this.refuse(res, endpoint, bodyTooLarge(), true);
        return;
      }
      this.answer(endpoint, text, signal).then(
        () => {
          this.answered[endpoint]?.inc();
          write(res, OK_ANSWER);
        },
        (err: unknown) => {
          if (err instanceof HttpError) {
            this.refuse(res, endpoint, err);
            return;
          }
          this.deps.logger?.error({ err }, 'fleetlock request failed');
          if (!res.headersSent)
            write(res, prepareAnswer(500, { kind: 'failed_internal', value: String(err) }));
        },
      );
    });
  }

  private async answer(endpoint: FleetLockEndpoint, text: string, signal: AbortSignal): Promise<void> {
    const { id, group } = parseParams(text, this.allowMissingGroup);
    if (endpoint === 'pre-reboot') await this.preReboot(id, group, signal);
    else await this.steadyState(id, group);
  }

  private refuse(
    res: ServerResponse,
    endpoint: FleetLockEndpoint | undefined,
    refusal: HttpError,
    close = false,
  ): void {
    this.count(endpoint, refusal.body.kind);
    write(res, prepareAnswer(refusal.status, refusal.body, close));
  }

  private count(endpoint: FleetLockEndpoint | undefined, result: string): void {
    this.deps.metrics?.fleetlockRequests.inc({ endpoint: endpoint ?? 'unknown', result });
  }

  /** The node of a client, checked against its FleetLock group; undefined when no node matches. */
  private async locate(id: string, group: string): Promise<{ node: Node; groupName: string } | undefined> {
    const { planner } = this.deps;
    // One after the other: both are cache reads, and neither waits on I/O.
    const groups = await planner.readGroups();
    const node = await this.directory.lookup(id, this.currentNode, this.managedNodes);
    if (!node) return undefined;
    const home = planner.groupOf(groups, node);
    const wanted = group === FLEETLOCK_DEFAULT_GROUP ? planner.defaultGroupName : group;
    if (home !== wanted) {
      throw new HttpError(409, {
        kind: 'failed_group_mismatch',
        value: `node ${node.metadata.name} belongs to reboot group ${home}, not ${group}`,
      });
    }
    return { node, groupName: home };
  }

  private holds(node: Node, id: string): boolean {
    const a = node.metadata.annotations ?? {};
    return a[FLEETLOCK_HOLDER_KEY] === id && a[this.deps.planner.protocol.annotations.rebootOk] === TRUE;
  }

  private async preReboot(id: string, group: string, signal: AbortSignal): Promise<void> {
    const found = await this.locate(id, group);
    if (!found)
      throw new HttpError(404, { kind: 'failed_node_lookup', value: `no node has machine ID ${id}` });
    const name = found.node.metadata.name as string;
    const keys = this.deps.planner.protocol.annotations;
    if (this.holds(found.node, id)) {
      this.waiting.forget(id);
      return;
    }
    const firstAsked = formatTimestamp(this.waiting.ask(id, this.deps.clock.now()));
    await this.edit(name, (node) => {
      const a = node.metadata.annotations ?? {};
      if (a[FLEETLOCK_HOLDER_KEY] === id && a[keys.rebootNeeded] === TRUE) return undefined;
      if (a[keys.rebootOk] === TRUE) {
        throw new HttpError(409, {
          kind: 'failed_lock_held_by_agent',
          value: `node ${name} holds a reboot grant that is not FleetLock's`,
        });
      }
      return {
        annotations: {
          [keys.rebootNeeded]: TRUE,
          [FLEETLOCK_HOLDER_KEY]: id,
          [coordinatorKeys.requestedAt]: a[coordinatorKeys.requestedAt] ?? firstAsked,
        },
      };
    });
    // The request is on the node: the reconciler grants it when the budget allows.
    const deadline = this.deps.clock.now() + this.waitMs;
    for (;;) {
      // One node by name (from the cache, when Nodes are cached), not the whole fleet, per poll.
      const node = await this.deps.client.get(Node, { name }).catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
      if (node && this.holds(node, id)) {
        this.waiting.forget(id);
        return;
      }
      // Scheduled: cordon and drain it, one step per poll; the planner grants once drained.
      if (node) await this.drainer.step(node, id);
      if (signal.aborted || this.deps.clock.now() >= deadline) {
        const world = await this.deps.planner.readWorld();
        const waiting = this.deps.planner.waitingEntry(world, name, this.deps.clock.now());
        if (await this.withdraw(name, id)) return; // granted in the meantime
        throw new HttpError(409, {
          kind: 'failed_lock_semaphore_full',
          value: waiting ? `${waiting.reason}: ${waiting.message}` : `node ${name} waits for its grant`,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Withdraws a client's request that was not granted in time (conditional on the node as read,
   * so a grant that lands first is kept); true when the node turned out granted. A node that
   * holds its slot (scheduled: being drained, or waiting for hooks) keeps its request across the
   * client's retries; its wait is bounded by the group's hook timeout.
   */
  private async withdraw(name: string, id: string): Promise<boolean> {
    const keys = this.deps.planner.protocol.annotations;
    const scheduledLabel = this.deps.planner.protocol.labels.beforeReboot;
    let granted = false;
    await this.edit(name, (node) => {
      const a = node.metadata.annotations ?? {};
      if (a[FLEETLOCK_HOLDER_KEY] !== id) return undefined;
      granted = a[keys.rebootOk] === TRUE;
      if (granted || node.metadata.labels?.[scheduledLabel] === TRUE) return undefined;
      const uncordon = uncordonEdit(node);
      return {
        ...uncordon,
        annotations: { ...uncordon?.annotations, [FLEETLOCK_HOLDER_KEY]: null, [keys.rebootNeeded]: FALSE },
      };
    });
    if (granted) this.waiting.forget(id);
    return granted;
  }

  private async steadyState(id: string, group: string): Promise<void> {
    this.waiting.forget(id);
    const found = await this.locate(id, group);
    if (!found) return; // nothing can be held by an unknown client
    const cached = found.node.metadata.annotations ?? {};
    // Not the holder by a cache that has seen our writes to the node: nothing to change.
    const name = found.node.metadata.name as string;
    const unseen = this.writes.mayBeUnseen(name) && this.writes.unseen(found.node, this.deps.clock.now());
    if (cached[FLEETLOCK_HOLDER_KEY] !== id && !unseen) return;
    const keys = this.deps.planner.protocol.annotations;
    const withdrawn = this.deps.planner.protocol.withdraw === 'false' ? FALSE : null;
    await this.edit(name, (node) => {
      const a = node.metadata.annotations ?? {};
      if (a[FLEETLOCK_HOLDER_KEY] !== id) return undefined; // not the holder: change nothing
      // Uncordoned only if the coordinator cordoned it.
      const uncordon = uncordonEdit(node);
      const edits: Record<string, string | null> = {
        ...uncordon?.annotations,
        [FLEETLOCK_HOLDER_KEY]: null,
        [FLEETLOCK_DRAINED_KEY]: null,
        [keys.rebootNeeded]: FALSE,
      };
      const bootID = node.status?.nodeInfo?.bootID;
      const grantedBoot = a[coordinatorKeys.grantedBootId];
      if (a[keys.rebootOk] === TRUE && (grantedBoot === undefined || grantedBoot === bootID)) {
        // Released without rebooting: abandon the grant, which frees the slot now.
        edits[keys.rebootOk] = withdrawn;
        edits[coordinatorKeys.grantedAt] = null;
        edits[coordinatorKeys.grantedBootId] = null;
      }
      return { ...uncordon, annotations: edits };
    });
  }

  private edit(name: string, change: NodeChange): Promise<void> {
    return editNode({ client: this.deps.client, clock: this.deps.clock, writes: this.writes }, name, change);
  }
}

function write(res: ServerResponse, answer: PreparedAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/**
 * Reads a request's body as UTF-8 and calls `done` once, with `tooLarge` past
 * {@link MAX_BODY_BYTES} (the rest is not read: the answer closes the connection). Listeners, not
 * an async iterator: a FleetLock body is one small chunk, and an iterator per request was a
 * tenth of the server's time in the profiles.
 */
function readBody(req: IncomingMessage, done: (tooLarge: boolean, text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      over = true;
      done(true, '');
      return;
    }
    chunks.push(chunk);
  });
  req.once('end', () => {
    if (over) return;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    done(false, body.toString('utf8'));
  });
}
