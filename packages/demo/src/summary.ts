/**
 * The demo's checked summary: from what each act found, whether the mission held — every Machine
 * Running with a Node and VCD calls made for it, every operator Available, every node rebooted
 * exactly once onto the new version, no group over its budget — and the lines that say so. Pure.
 */
import type { ClusterFacts } from './cluster-act.js';
import type { InstallFacts } from './install-act.js';
import { componentAvailable } from './tables.js';
import { clock } from './view.js';

/** What a run found; an act not run (or not reached) has no facts. */
export interface MissionFacts {
  /** The acts the run was asked for. */
  acts: { cluster: boolean; reboot: boolean };
  /** Machines act 1 asks for. */
  expectedMachines: number;
  /** The version the nodes update to. */
  toVersion: string;
  cluster?: ClusterFacts;
  install?: InstallFacts;
  reboot?: RebootFactsView;
  /** Faults and the error that ended the run, if any. */
  errors: string[];
  elapsedMs: number;
}

/** The parts of act 3's facts the summary reads. */
export interface RebootFactsView {
  machines: Array<{
    name: string;
    rebootRequests: number;
    bootIDs: readonly string[];
    versions: readonly string[];
  }>;
  groups: Array<{ name: string; budget: number; most: number; nodes: string[] }>;
  workloadsDown: string[];
}

/** The verdict and its lines. */
export interface MissionSummary {
  ok: boolean;
  lines: string[];
  /** Why `ok` is false. */
  problems: string[];
}

/** Checks `facts`; see the file comment. */
export function checkMission(facts: MissionFacts): MissionSummary {
  const problems = [...facts.errors];
  const lines: string[] = [];
  if (facts.acts.cluster) checkCluster(facts, lines, problems);
  if (facts.acts.reboot) {
    checkInstall(facts, lines, problems);
    checkReboot(facts, lines, problems);
  }
  lines.push(`elapsed: ${clock(facts.elapsedMs)}`);
  return { ok: problems.length === 0, lines, problems };
}

function checkCluster(facts: MissionFacts, lines: string[], problems: string[]): void {
  const c = facts.cluster;
  if (!c) {
    problems.push('act 1 (provision) did not finish');
    return;
  }
  const running = c.machines.filter((m) => m.phase === 'Running' && m.node !== undefined);
  const workers = c.machines.filter((m) => !m.controlPlane).length;
  lines.push(
    `machines Running: ${running.length} of ${facts.expectedMachines} (${c.machines.length - workers} control-plane machines of a KubeadmControlPlane and ${workers} workers of a MachineDeployment)`,
  );
  if (running.length !== facts.expectedMachines || c.machines.length !== facts.expectedMachines)
    problems.push(
      `${running.length} of ${facts.expectedMachines} Machines Running with a Node (${c.machines.length} exist)`,
    );
  for (const m of c.machines)
    if (!running.includes(m)) problems.push(`Machine ${m.name}: ${m.phase}, node ${m.node ?? 'none'}`);
  const calls = c.machines.map((m) => m.calls);
  lines.push(
    `VCD calls made: ${c.vcdCalls} (${c.vcdWrites} writes, ${c.vcdTasks} tasks); per machine ${calls.length ? Math.min(...calls) : 0}–${calls.length ? Math.max(...calls) : 0}; load balancer ${c.loadBalancer ? `VIP ${c.loadBalancer.vip}` : 'none'}`,
  );
  if (c.vcdCalls === 0) problems.push('no VCD call was made');
  for (const m of c.machines)
    if (m.calls === 0) problems.push(`Machine ${m.name}: no VCD call was made for its VM`);
  if (!c.loadBalancer) problems.push('the cluster has no load-balanced endpoint');
  problems.push(...c.guestErrors.map((e) => `a guest's boot failed: ${e}`));
  checkRollout(c, lines, problems);
}

/** The control plane's version bump: every old machine replaced, one at a time, the pool served. */
function checkRollout(c: ClusterFacts, lines: string[], problems: string[]): void {
  const r = c.rollout;
  if (!r) {
    problems.push('the control plane was not rolled');
    return;
  }
  const served =
    r.withoutHealthyMember === 0
      ? 'never without a healthy member'
      : `WITHOUT a healthy member in ${r.withoutHealthyMember}`;
  lines.push(
    `control plane rolled ${r.from} → ${r.to}: ${r.replaced} of ${r.replicas} machines replaced, at most ${r.mostVms} control-plane VMs at once; load balancer ${served} of ${r.samples} samples, no VM going down in its pool: ${r.membersDown === 0 ? 'yes' : 'NO'} (${clock(r.elapsedMs)})`,
  );
  if (r.replaced !== r.replicas)
    problems.push(`the rollout replaced ${r.replaced} of ${r.replicas} control-plane machines`);
  if (r.mostVms > r.replicas + 1)
    problems.push(
      `the rollout ran ${r.mostVms} control-plane VMs at once (maxSurge 1 allows ${r.replicas + 1})`,
    );
  if (r.samples === 0) problems.push('the load balancer pool was never sampled during the rollout');
  if (r.withoutHealthyMember > 0)
    problems.push(
      `the load balancer had no healthy member in ${r.withoutHealthyMember} samples during the rollout`,
    );
  if (r.membersDown > 0) problems.push(`the pool held a VM going down: ${r.firstMemberDown}`);
}

function checkInstall(facts: MissionFacts, lines: string[], problems: string[]): void {
  const i = facts.install;
  if (!i) {
    problems.push('act 2 (install) did not finish');
    return;
  }
  const available = i.components.filter(componentAvailable);
  lines.push(
    `operators Available: ${available.length} of ${i.components.length} at ${i.version} (${i.components.map((c) => `${c.name.split(' ')[0]} ${c.name.split('/').at(-1)} ${c.available}/${c.desired}`).join(', ')}); RebootStack ${i.stackAvailable ? 'Available' : 'NOT Available'}`,
  );
  if (!i.stackAvailable) problems.push('the RebootStack is not Available');
  for (const c of i.components)
    if (!componentAvailable(c)) problems.push(`${c.name}: ${c.available} of ${c.desired} available`);
}

function checkReboot(facts: MissionFacts, lines: string[], problems: string[]): void {
  const r = facts.reboot;
  if (!r) {
    problems.push('act 3 (update) did not finish');
    return;
  }
  let once = 0;
  for (const m of r.machines) {
    if (m.rebootRequests === 1 && m.bootIDs.length === 2 && m.versions.at(-1) === facts.toVersion) once += 1;
    else
      problems.push(
        `${m.name}: ${m.rebootRequests} reboot requests, ${m.bootIDs.length} boots, now on ${m.versions.at(-1) ?? 'nothing'}`,
      );
  }
  lines.push(`nodes rebooted once onto ${facts.toVersion}: ${once} of ${r.machines.length}`);
  if (r.machines.length === 0) problems.push('no node was updated');
  for (const g of r.groups) {
    const verdict = g.most <= g.budget ? 'within budget' : 'OVER BUDGET';
    lines.push(`${g.name}: most disrupted at once ${g.most}, budget ${g.budget} (${verdict})`);
    if (g.most > g.budget) problems.push(`${g.name}: ${g.most} nodes disrupted at once, budget ${g.budget}`);
    if (g.most === 0 && g.nodes.length > 0) problems.push(`${g.name}: no node was ever seen disrupted`);
  }
  problems.push(...r.workloadsDown);
}

/** The summary as printed at the end of the demo. */
export function formatSummary(summary: MissionSummary, logFile: string): string {
  const lines = ['', 'Summary', ...summary.lines.map((l) => `  ${l}`), `  logs (JSON lines): ${logFile}`];
  if (summary.ok) lines.push('  result: OK');
  else lines.push('  result: FAILED', ...summary.problems.map((p) => `    - ${p}`));
  return `${lines.join('\n')}\n`;
}
