/**
 * The demo as the README runs it: its built main in a child process, against its own control
 * plane, with the real coordinator and 12 real agents on private D-Buses, once per protocol. This
 * is also where our agent is checked against our coordinator end to end in both protocols.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type DemoSummary, formatSummary, summarize } from '../src/demo.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function runMain(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe.each(['capstan', 'fluo'])('npm run demo, %s protocol', (protocol) => {
  it('reboots all 12 nodes onto the new version, each group within its budget, and exits 0', async () => {
    const { code, output } = await runMain(['--plain', '--protocol', protocol, '--reboot-seconds', '1']);
    expect(output, output).toContain('nodes rebooted onto 4459.2.1: 12 of 12');
    expect(output).toMatch(/control-plane: most disrupted at once 1, budget 1 \(within budget\)/);
    // Nine workers at 25%: two at once; the coordinator uses the whole budget but never more.
    expect(output).toMatch(/workers: most disrupted at once 2, budget 2 \(within budget\)/);
    expect(output).toContain('result: OK');
    expect(code).toBe(0);
    // Every node was drained once, so each of the 12 Deployment pods placed at the start was
    // evicted and replaced on another node; everything runs again at the end.
    const moved =
      /Workloads: (\d+) evicted pods were rescheduled onto other nodes; all 12 Deployment pods and 12 DaemonSet pods run again/.exec(
        output,
      );
    expect(moved, output).not.toBeNull();
    expect(Number(moved?.[1])).toBeGreaterThanOrEqual(12);
    // Control-plane nodes went first: every control-plane node was updated before any worker was granted.
    const lines = output.split('\n');
    const lastControlPlaneUpdated = lines.findLastIndex((l) => /control-plane-\d .*→ updated/.test(l));
    const firstWorkerGranted = lines.findIndex((l) => /worker-\d .*→ granted/.test(l));
    expect(lastControlPlaneUpdated).toBeGreaterThan(0);
    expect(firstWorkerGranted).toBeGreaterThan(lastControlPlaneUpdated);
  }, 240_000);
});

/** Every process below `root`, from `ps`. */
function descendants(root: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [pid, ppid] of rows) {
      if (ppid === parent) {
        found.push(pid);
        walk(pid);
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
  it('stops mid-rollout on SIGINT: reports the interruption, exits 1 and leaves no process behind', async () => {
    const child = spawn(process.execPath, [main, '--plain', '--reboot-seconds', '5'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const staged = new Promise<void>((resolve) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        if (output.includes('→ rebooting')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    await Promise.race([staged, exited]);
    const pid = child.pid as number;
    const below = descendants(pid);
    // etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok and twelve dbus-daemons at least.
    expect(below.length, output).toBeGreaterThanOrEqual(17);
    child.kill('SIGINT');
    const code = await exited;
    expect(code, output).toBe(1);
    expect(output).toContain('stopping the demo');
    expect(output).toMatch(/result: FAILED\n\s+- interrupted/);
    const deadline = Date.now() + 10_000;
    while (below.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(below.filter(alive)).toEqual([]);
  }, 120_000);
});

describe('the summary', () => {
  const group = {
    name: 'workers',
    order: 1,
    maxUnavailable: '25%',
    budget: 2,
    nodes: ['a', 'b', 'c'],
    current: 0,
  };
  const machine = (name: string, reboots: number, version: string) =>
    ({
      name,
      rebootRequests: reboots,
      bootIDs: ['1', '2'].slice(0, reboots + 1),
      versions: ['old', version],
    }) as never;

  it('fails a run where a group went over its budget, or a node did not reboot exactly once', () => {
    const over = summarize([{ ...group, most: 3 }], [machine('a', 1, '4459.2.1')], 60_000, []);
    expect(over.ok).toBe(false);
    expect(over.problems).toContain('workers: 3 nodes disrupted at once, budget 2');

    const twice = summarize([{ ...group, most: 2 }], [machine('a', 2, '4459.2.1')], 60_000, []);
    expect(twice.ok).toBe(false);
    expect(twice.rebooted).toBe(0);
    expect(formatSummary(twice, 'x.log')).toContain('result: FAILED');
  });

  it('passes a clean run and prints it', () => {
    const ok: DemoSummary = summarize([{ ...group, most: 2 }], [machine('a', 1, '4459.2.1')], 75_000, []);
    expect(ok).toMatchObject({ ok: true, rebooted: 1, problems: [] });
    expect(formatSummary(ok, 'x.log')).toContain(
      'workers: most disrupted at once 2, budget 2 (within budget)',
    );
    expect(formatSummary(ok, 'x.log')).toContain('elapsed: 1:15');
  });
});
