/**
 * What the fault suite checks, from a watch on every Node (a runtime SharedInformer, relisting
 * after each apiserver restart): after every event, how many nodes of each group are disrupted
 * (granted, in progress, cordoned or not Ready) against its budget; every boot ID change (a
 * reboot) and the grant it happened under. A reboot is legitimate only when leaving a boot that was
 * granted; as a boot ID is never reused, a second reboot under one grant leaves a boot nobody
 * granted and is recorded as a violation.
 */
import { coordinatorKeys, type Protocol } from '@capstan/reboot-protocol';
import { SharedInformer } from '@capstan/runtime/cache';
import { type ApiTransport, type Node, Node as NodeType } from '@capstan/runtime/client';

/** A reboot group as the suite planned it. */
export interface PlannedGroup {
  name: string;
  budget: number;
  nodes: string[];
}

interface NodeRecord {
  node: Node;
  bootIDs: string[];
  /** Boot IDs a grant was seen for (`granted-boot-id` with reboot-ok). */
  grantedBoots: Set<string>;
  /** Reboots seen, keyed by the granted boot they left. */
  rebootsByGrant: Map<string, number>;
}

/** The watch-fed record of the run. See the file comment. */
export class FleetLedger {
  /** Watch events handled. */
  events = 0;
  /** Every invariant broken, with when it was seen (empty when all held). */
  readonly violations: string[] = [];
  private readonly records = new Map<string, NodeRecord>();
  private readonly groupOf = new Map<string, PlannedGroup>();
  private readonly most = new Map<string, number>();
  private informer: SharedInformer<Node> | undefined;
  private readonly startedAt = Date.now();
  private armed = false;

  constructor(
    private readonly protocol: Protocol,
    readonly groups: PlannedGroup[],
  ) {
    for (const g of groups) for (const n of g.nodes) this.groupOf.set(n, g);
  }

  /** Records every Node event from a watch through `transport`; resolves once the first list is in. */
  async watch(transport: ApiTransport): Promise<void> {
    const informer = new SharedInformer(transport, NodeType, {});
    informer.addEventHandler({
      onAdd: (node) => this.record(node),
      onUpdate: (_old, node) => this.record(node),
    });
    this.informer = informer;
    informer.start();
    await informer.waitForSync(60_000);
  }

  async stop(): Promise<void> {
    await this.informer?.stop();
  }

  /** Starts checking budgets (once the fleet has joined: a joining node is not Ready yet). */
  arm(): void {
    this.armed = true;
    for (const g of this.groups) this.count(g, 'armed');
  }

  /** The most nodes of `group` seen disrupted at once. */
  mostDisrupted(group: string): number {
    return this.most.get(group) ?? 0;
  }

  /** Reboots seen on `node` (boot ID changes). */
  reboots(node: string): number {
    return Math.max(0, (this.records.get(node)?.bootIDs.length ?? 0) - 1);
  }

  /** Distinct grants seen on `node`. */
  grants(node: string): number {
    return this.records.get(node)?.grantedBoots.size ?? 0;
  }

  /** The node as last seen. */
  node(name: string): Node | undefined {
    return this.records.get(name)?.node;
  }

  /** Whether `name` counts against its group's budget now. */
  disrupted(name: string): boolean {
    const node = this.records.get(name)?.node;
    if (!node) return false;
    const a = node.metadata.annotations ?? {};
    const k = this.protocol.annotations;
    const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    return (
      !ready ||
      a[k.rebootOk] === 'true' ||
      a[k.rebootInProgress] === 'true' ||
      node.spec?.unschedulable === true
    );
  }

  /** One Node as a watch event delivered it. */
  record(node: Node): void {
    const name = node.metadata.name ?? '';
    const group = this.groupOf.get(name);
    if (!group) return;
    this.events += 1;
    const at = `${((Date.now() - this.startedAt) / 1000).toFixed(1)}s`;
    const record = this.records.get(name) ?? {
      node,
      bootIDs: [],
      grantedBoots: new Set<string>(),
      rebootsByGrant: new Map<string, number>(),
    };
    record.node = node;
    this.records.set(name, record);
    const a = node.metadata.annotations ?? {};
    const grantedBoot = a[coordinatorKeys.grantedBootId];
    if (a[this.protocol.annotations.rebootOk] === 'true' && grantedBoot) record.grantedBoots.add(grantedBoot);
    const bootID = node.status?.nodeInfo?.bootID ?? '';
    const left = record.bootIDs.at(-1);
    if (bootID && left !== bootID) {
      record.bootIDs.push(bootID);
      if (left !== undefined) {
        const n = (record.rebootsByGrant.get(left) ?? 0) + 1;
        record.rebootsByGrant.set(left, n);
        if (!record.grantedBoots.has(left))
          this.violations.push(`${at} ${name} rebooted out of boot ${left}, which no grant was seen for`);
        else if (n > 1)
          this.violations.push(`${at} ${name} rebooted ${n} times under the grant of boot ${left}`);
      }
    }
    if (this.armed) this.count(group, at);
  }

  private count(group: PlannedGroup, at: string): void {
    const now = group.nodes.filter((n) => this.disrupted(n)).length;
    this.most.set(group.name, Math.max(this.most.get(group.name) ?? 0, now));
    if (now > group.budget)
      this.violations.push(`${at} ${group.name}: ${now} nodes disrupted at once, budget ${group.budget}`);
  }
}
