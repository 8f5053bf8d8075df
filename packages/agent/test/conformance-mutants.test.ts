/**
 * Mutation checks: deliberately broken agents, wired as addAgent wires the real one, must be
 * caught by the agent's conformance scenarios.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manager } from '@capstan/runtime';
import { searchConformance } from '@capstan/runtime/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type AgentOptions, addAgent } from '../src/operator.js';
import { rebootsScenario } from './agent-scenario.js';
import { bootIdOf } from './agent-world.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-agent-mutant-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the agent's scenarios catch a broken agent", () => {
  it('one that reboots without checking its drain (it lists no pods) reboots undrained', async () => {
    const careless = (manager: Manager, options: AgentOptions) => {
      const agent = addAgent(manager, options);
      // The broken copy: the drain's pod listing answers nothing, so every drain looks done.
      Object.assign(agent.reconciler, { listPods: async () => [] });
      return agent;
    };
    const report = await searchConformance(rebootsScenario(careless), { numRuns: 10, seed: 47 });
    expect(report.failure?.violation).toMatch(/no reboot after a failed drain/);
  }, 120_000);

  it('one that trusts a boot ID that never changes takes the next grant for a stale one: stuck', async () => {
    const bootIdPath = join(dir, 'boot_id');
    writeFileSync(bootIdPath, `${bootIdOf(0)}\n`);
    const stale = (manager: Manager, options: AgentOptions) => addAgent(manager, { ...options, bootIdPath });
    const report = await searchConformance(rebootsScenario(stale), { numRuns: 10, seed: 47 });
    expect(report.failure?.violation).toMatch(/did not converge .*: still granted/);
  }, 120_000);
});
