/**
 * The demo as the README runs it: its built main in a child process, against its own control
 * plane, with the real coordinator and 12 real agents on private D-Buses, once per protocol. This
 * is also where our agent is checked against our coordinator end to end in both protocols.
 */
import { spawn } from 'node:child_process';
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
    // Control-plane nodes went first: every control-plane node was updated before any worker was granted.
    const lines = output.split('\n');
    const lastControlPlaneUpdated = lines.findLastIndex((l) => /control-plane-\d .*→ updated/.test(l));
    const firstWorkerGranted = lines.findIndex((l) => /worker-\d .*→ granted/.test(l));
    expect(lastControlPlaneUpdated).toBeGreaterThan(0);
    expect(firstWorkerGranted).toBeGreaterThan(lastControlPlaneUpdated);
  }, 240_000);
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
