/**
 * The machine's own boot ID is the truth: after a reboot the kubelet may not have posted the new
 * one yet, and the Node's stale status would make the grant for the previous boot look like this
 * boot's, so the agent would reboot the node a second time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Manager } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import { FakeCluster } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type DecisionConfig, INITIAL_MEMORY } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import {
  Agent,
  agentOptionsFromFlags,
  MACHINE_BOOT_ID_PATH,
  nodeFacts,
  readMachineBootId,
} from '../src/index.js';
import { midCycleAnnotations } from './fixtures.js';
import { ManualSource } from './helpers.js';

const config: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 10_000,
  forceReboot: false,
  failureBackoffMs: 60_000,
  podPollMs: 500,
};

/** The agent's flags as parsed, but the boot ID path. */
const base = {
  nodeName: 'n1',
  source: 'file',
  rebootSentinel: '/x',
  sentinelInterval: '1m',
  drainTimeout: '10m',
  drainGracePeriod: '-1s',
  failureBackoff: '5m',
  forceReboot: false,
  protocol: 'capstan',
  osReleasePath: '/etc/os-release',
} as Parameters<typeof agentOptionsFromFlags>[0];

/** The Node as the agent finds it right after the reboot, the kubelet still showing the old boot. */
const rebooted = {
  metadata: {
    name: 'n1',
    resourceVersion: '7',
    annotations: midCycleAnnotations(),
  },
  spec: { unschedulable: true },
  status: { nodeInfo: { bootID: 'boot-1' } },
} as unknown as Node;

/** Decides until the agent waits, applying its patches; every action taken. */
function run(machineBootId: string | undefined, sourceKnown = true): string[] {
  let facts = nodeFacts(rebooted, machineBootId);
  let memory: AgentMemory = INITIAL_MEMORY;
  const actions: string[] = [];
  for (let i = 0; i < 20; i++) {
    const d = decide(
      {
        now: 1_700_000_000_000,
        node: facts,
        source: sourceKnown ? { rebootNeeded: true } : undefined,
        sourceKnown,
        os: undefined,
        pods: [],
      },
      memory,
      config,
    );
    memory = d.memory;
    actions.push(d.action.kind);
    if (d.action.kind === 'wait' || d.action.kind === 'reboot') break;
    if (d.action.kind === 'patch') {
      const annotations = { ...facts.annotations };
      for (const [key, v] of Object.entries(d.action.patch.annotations)) {
        if (v === null) delete annotations[key];
        else annotations[key] = v;
      }
      const labels = { ...facts.labels };
      for (const [key, v] of Object.entries(d.action.patch.labels)) {
        if (v === null) delete labels[key];
        else labels[key] = v;
      }
      facts = {
        ...facts,
        annotations,
        labels,
        ...(d.action.patch.unschedulable !== undefined
          ? { unschedulable: d.action.patch.unschedulable }
          : {}),
      };
    }
  }
  return actions;
}

describe("the machine's boot ID", () => {
  it('keeps a slow kubelet from causing a second reboot', () => {
    expect(run('boot-2')).not.toContain('reboot');
    expect(run('boot-2').at(-1)).toBe('wait');
    // Without it the stale status is all the agent has (what the test kits simulate): that is
    // why the agent refuses to start without it (below).
    expect(run(undefined)).toContain('reboot');
  });

  it("nothing is decided on the old boot's annotations before the source answers", () => {
    expect(run(undefined, false)).toEqual(['wait']);
    expect(run('boot-2', false)).toEqual(['wait']);
  });

  it('the agent refuses to start without a readable boot ID (flags and library)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-boot-id-'));
    try {
      expect(() => agentOptionsFromFlags({ ...base, bootIdPath: '' })).toThrow(/--boot-id-path must name/);
      const missing = join(dir, 'missing');
      expect(() => agentOptionsFromFlags({ ...base, bootIdPath: missing })).toThrow(
        `--boot-id-path ${missing}: cannot read this machine's boot ID`,
      );
      const empty = join(dir, 'empty');
      writeFileSync(empty, '\n');
      expect(() => agentOptionsFromFlags({ ...base, bootIdPath: empty })).toThrow(/cannot read/);
      const manager = Manager.create({
        transport: new FakeCluster({ kinds: [Node] }),
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        logLevel: 'silent',
      });
      expect(
        () =>
          new Agent(manager, {
            nodeName: 'n1',
            bootIdPath: missing,
            source: new ManualSource(),
            rebooter: { reboot: async () => {} },
          }),
      ).toThrow(/does not start without it/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read from a file whose path tests inject, and the main reads /proc by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-boot-id-'));
    try {
      const file = join(dir, 'boot_id');
      writeFileSync(file, '3f1c2a9e-1111-2222-3333-444455556666\n');
      expect(readMachineBootId(file)).toBe('3f1c2a9e-1111-2222-3333-444455556666');
      expect(readMachineBootId(join(dir, 'missing'))).toBeUndefined();
      expect(nodeFacts(rebooted, readMachineBootId(file)).bootID).toBe(
        '3f1c2a9e-1111-2222-3333-444455556666',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(MACHINE_BOOT_ID_PATH).toBe('/proc/sys/kernel/random/boot_id');
    expect(agentOptionsFromFlags({ ...base, bootIdPath: MACHINE_BOOT_ID_PATH }).bootIdPath).toBe(
      MACHINE_BOOT_ID_PATH,
    );
  });
});
