/**
 * Mutation check: a deliberately broken version operator, wired as addVersionOperator wires the
 * real one, must be caught by the stack's conformance scenario.
 */
import type { Manager } from '@capstan/runtime';
import { searchConformance } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { addVersionOperator, type Catalogue } from '../src/index.js';
import { stackScenario } from './stack-scenario.js';

/** The reconciler's private step that applies one component's objects. */
interface Applying {
  applyComponent(rendered: unknown, component: 'coordinator' | 'agent'): Promise<unknown>;
}

describe("the version operator's scenario catches a broken operator", () => {
  it("one that applies the agent's objects with the coordinator's upgrades the agent first", async () => {
    const eager = (manager: Manager, options: { catalogue: Catalogue; rolloutPollMs: number }) => {
      const { reconciler } = addVersionOperator(manager, options);
      const applying = reconciler as unknown as Applying;
      const apply = applying.applyComponent.bind(applying);
      // The broken copy: no waiting for the coordinator's rollout before the agent's.
      Object.assign(applying, {
        applyComponent: async (rendered: unknown, component: 'coordinator' | 'agent') => {
          if (component === 'coordinator') await apply(rendered, 'agent');
          return apply(rendered, component);
        },
      });
    };
    const report = await searchConformance(stackScenario(eager), { numRuns: 5, seed: 47 });
    expect(report.failure?.violation).toMatch(/the coordinator is upgraded before the agent/);
  }, 120_000);
});
