/**
 * The demo as the README runs it: its built main in a child process. The whole mission once
 * (cluster on vcdsim through Cluster API and capvcd, operators by the version operator, every node
 * updated), its summary checked fact by fact; the update acts alone in the FLUO protocol; and an
 * interrupt mid-run that must leave no process behind.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/**
 * Runs the demo; past `deadlineMs` it is interrupted (as a user's Ctrl-C) and the run fails with
 * what it printed, so a stall says where it stood instead of ending as a bare test timeout.
 */
function runMain(args: string[], deadlineMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let late = false;
    const keep = (d: Buffer) => {
      output += d.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      late = true;
      child.kill('SIGINT');
      // A demo that does not stop on the interrupt is killed.
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    }, deadlineMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (late)
        reject(
          new Error(`the demo ran past ${deadlineMs / 1000} s and was interrupted; it printed:\n${output}`),
        );
      else resolve({ code, output });
    });
  });
}

/** The update act's facts, the same in the whole run and in `--only reboot`. */
function expectUpdated(output: string, nodes = 6): void {
  expect(output).toMatch(
    new RegExp(
      `operators Available: 3 of 3 at \\S+ \\(Deployment capstan-version-operator 2/2, Deployment capstan-coordinator 2/2, DaemonSet capstan-agent ${nodes}/${nodes}\\); RebootStack Available`,
    ),
  );
  // The RebootStack's workersMaxUnavailable: the version operator created the group at 40%.
  expect(output).toMatch(
    /the default RebootGroups: control-plane \(order 0, maxUnavailable 1\); workers \(order 1, maxUnavailable 40%\)/,
  );
  expect(output).toContain(`nodes rebooted once onto 4459.2.1: ${nodes} of ${nodes}`);
  expect(output).toMatch(/control-plane: most disrupted at once 1, budget 1 \(within budget\)/);
  // Five workers at 40%: two at once; the coordinator uses the whole budget but never more.
  expect(output).toMatch(/workers: most disrupted at once 2, budget 2 \(within budget\)/);
  const moved =
    /workloads: (\d+) evicted pods were rescheduled; every Deployment and DaemonSet pod runs again/.exec(
      output,
    );
  expect(moved, output).not.toBeNull();
  expect(Number(moved?.[1])).toBeGreaterThanOrEqual(6);
  // The control plane went first: it was updated before any worker was granted.
  const lines = output.split('\n');
  const controlPlaneUpdated = lines.findLastIndex((l) => /control-plane-\S+ .*→ updated/.test(l));
  const firstWorkerGranted = lines.findIndex((l) => /worker\S* .*→ granted/.test(l));
  expect(controlPlaneUpdated).toBeGreaterThan(0);
  expect(firstWorkerGranted).toBeGreaterThan(controlPlaneUpdated);
  expect(output).toContain('result: OK');
}

describe('npm run demo', () => {
  it('the whole mission: 8 Machines Running on vcdsim (3 of a KubeadmControlPlane, rolled to a new version), VCD calls for each, operators Available, 8 of 8 nodes rebooted once within budget; exits 0', async () => {
    const { code, output } = await runMain(['--plain', '--reboot-seconds', '2'], 540_000);
    expect(output, output).toContain(
      'machines Running: 8 of 8 (3 control-plane machines of a KubeadmControlPlane',
    );
    expect(output).toContain('and 5 workers of a MachineDeployment');
    const vcd =
      /VCD calls made: (\d+) \((\d+) writes, (\d+) tasks\); per machine (\d+)–(\d+); load balancer VIP (\S+)/.exec(
        output,
      );
    expect(vcd, output).not.toBeNull();
    const [, calls, writes, tasks, fewest] = (vcd as RegExpExecArray).map(Number);
    expect(calls).toBeGreaterThan(writes as number);
    expect(writes).toBeGreaterThan(0);
    expect(tasks).toBeGreaterThanOrEqual(8 * 3); // per VM at least: create, configure, power on
    expect(fewest).toBeGreaterThan(0); // every VM had its own calls
    // Each guest read its bootstrap data and played kubeadm: init once, two control-plane joins
    // (KCP scales up once the first is initialized), five worker joins; then the version bump's
    // three new control-plane machines joined.
    expect(output.match(/cloud-config kubeadm init; registered Node/g)).toHaveLength(1);
    expect(output.match(/cloud-config kubeadm join --control-plane; registered Node/g)).toHaveLength(5);
    expect(output.match(/cloud-config kubeadm join; registered Node/g)).toHaveLength(5);
    // KCP rolled the control plane in the live view: one machine at a time, the pool always served.
    expect(output).toMatch(/Rolling the control plane: KubeadmControlPlane \S+ v1\.35\.0 → v1\.35\.1/);
    expect(output).toMatch(/\S+-control-plane-\S+ +Running +v1\.35\.1 /);
    expect(output).toMatch(
      /control plane rolled v1\.35\.0 → v1\.35\.1: 3 of 3 machines replaced, at most 4 control-plane VMs at once; load balancer never without a healthy member of \d+ samples, no VM going down in its pool: yes/,
    );
    expectUpdated(output, 8);
    expect(code).toBe(0);
  }, 600_000);

  it('--only reboot --protocol fluo: the operators and the update on a local kwok cluster; exits 0', async () => {
    const { code, output } = await runMain(
      // Its own deadline first: a stall then says what it waited for.
      [
        '--plain',
        '--only',
        'reboot',
        '--protocol',
        'fluo',
        '--reboot-seconds',
        '1',
        '--timeout-seconds',
        '200',
      ],
      250_000,
    );
    expect(output, output).not.toContain('machines Running');
    expect(output).toContain('(fluo protocol)');
    expectUpdated(output);
    expect(code).toBe(0);
  }, 300_000);
});

/** Every process below `root`, with its command name, from `ps`. */
function descendants(root: number): Array<{ pid: number; command: string }> {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid, ...command] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), command: command.join(' ') };
    });
  const found: Array<{ pid: number; command: string }> = [];
  const walk = (parent: number) => {
    for (const row of rows) {
      if (row.ppid === parent) {
        found.push({ pid: row.pid, command: row.command });
        walk(row.pid);
      }
    }
  };
  walk(root);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('interrupting the demo', () => {
  it('stops mid-update on SIGINT: reports the interruption, exits 1 and leaves no process behind', async () => {
    const child = spawn(process.execPath, [main, '--plain', '--reboot-seconds', '5'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const rebooting = new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        if (output.includes('→ rebooting')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    await Promise.race([rebooting, exited]);
    const below = descendants(child.pid as number);
    const count = (name: RegExp) => below.filter((p) => name.test(p.command)).length;
    // Two control planes (etcd, kube-apiserver, kube-controller-manager each) and the workload
    // cluster's three stacked etcd members, Cluster API's core, kubeadm bootstrap and control-plane
    // managers, kube-scheduler and kwok, eight dbus-daemons (ps cuts names at 15).
    expect(count(/^etcd$/), output).toBe(5);
    expect(count(/^kube-apiserver$/)).toBe(2);
    expect(count(/^kube-controller/)).toBe(2);
    expect(count(/^cluster-api-man/)).toBe(1);
    expect(count(/^kubeadm-bootstr/)).toBe(1);
    expect(count(/^kubeadm-control/)).toBe(1);
    expect(count(/^kwok$/)).toBe(1);
    expect(count(/^dbus-daemon$/)).toBe(8);
    child.kill('SIGINT');
    const code = await exited;
    expect(code, output).toBe(1);
    expect(output).toContain('stopping the demo');
    expect(output).toMatch(/result: FAILED\n\s+- interrupted/);
    const deadline = Date.now() + 15_000;
    while (below.some((p) => alive(p.pid)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(below.filter((p) => alive(p.pid))).toEqual([]);
  }, 600_000);
});
