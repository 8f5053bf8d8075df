/**
 * Mutation checks: deliberately broken copies of the Greeting reconciler, each wired as main wires
 * the real one, must be caught by the conformance scenario (else the scenario checks too little).
 */
import {
  type Client,
  generationChanged,
  isNotFound,
  type Manager,
  type Request,
  setCondition,
  setControllerReference,
} from '@capstan/runtime';
import { ConfigMap } from '@capstan/runtime/client';
import { formatFailure, searchConformance } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { configMapNameFor, type Greeting, GreetingType, renderGreeting } from '../src/index.js';
import { greetingScenario } from './greeting-scenario.js';

type Mutant = (client: Client, request: Request) => Promise<void>;

function withMutant(mutant: Mutant, actions = greetingScenario.actions) {
  return {
    ...greetingScenario,
    actions,
    name: 'greeting (mutant)',
    setup: (manager: Manager) => {
      manager
        .controllerBuilder()
        .named('greeting')
        .for(GreetingType, { predicates: [generationChanged] })
        .owns(ConfigMap)
        .build((request) => mutant(manager.client, request));
    },
  };
}

async function readGreeting(client: Client, request: Request): Promise<Greeting | undefined> {
  try {
    return await client.get(GreetingType, request);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function configMapFor(g: Greeting, owned: boolean): ConfigMap {
  const cm: ConfigMap = {
    metadata: { name: configMapNameFor(g), namespace: g.metadata.namespace },
    data: { greeting: renderGreeting(g.spec) },
  };
  if (owned) setControllerReference(GreetingType, g, cm);
  return cm;
}

async function writeReady(client: Client, g: Greeting): Promise<void> {
  const generation = g.metadata.generation;
  const conditions = setCondition(g.status?.conditions, {
    type: 'Ready',
    status: 'True',
    reason: 'ConfigMapWritten',
    message: 'written',
    observedGeneration: generation,
  });
  const status = { observedGeneration: generation, configMapName: configMapNameFor(g), conditions };
  if (JSON.stringify(status) !== JSON.stringify(g.status))
    await client.patchStatus(
      GreetingType,
      { namespace: g.metadata.namespace, name: g.metadata.name ?? '' },
      'merge',
      { status },
    );
}

/** Creates the ConfigMap on every reconcile (no get-or-create), ignoring AlreadyExists. */
const createAlways: Mutant = async (client, request) => {
  const g = await readGreeting(client, request);
  if (!g) return;
  await client.create(ConfigMap, configMapFor(g, true)).catch(async () => {
    await client.update(ConfigMap, configMapFor(g, true));
  });
  await writeReady(client, g);
};

/** Writes Ready first and skips a Greeting whose generation it has observed: a crash in between loses the ConfigMap. */
const statusFirst: Mutant = async (client, request) => {
  const g = await readGreeting(client, request);
  if (!g || g.status?.observedGeneration === g.metadata.generation) return;
  await writeReady(client, g);
  const existing = await client
    .get(ConfigMap, { namespace: request.namespace, name: configMapNameFor(g) })
    .catch(() => undefined);
  if (existing)
    await client.update(ConfigMap, { ...configMapFor(g, true), metadata: { ...existing.metadata } });
  else await client.create(ConfigMap, configMapFor(g, true));
};

/** Makes the ConfigMap without an owner reference: deleting the Greeting leaks it. */
const unowned: Mutant = async (client, request) => {
  const g = await readGreeting(client, request);
  if (!g) return;
  const existing = await client
    .get(ConfigMap, { namespace: request.namespace, name: configMapNameFor(g) })
    .catch(() => undefined);
  const want = configMapFor(g, false);
  if (!existing) await client.create(ConfigMap, want);
  else if (existing.data?.greeting !== want.data?.greeting)
    await client.update(ConfigMap, { ...want, metadata: existing.metadata });
  await writeReady(client, g);
};

/** The user's actions without deleting a ConfigMap: mutants that never repair one pass them unperturbed. */
const quiet = greetingScenario.actions.slice(0, 2);

describe('the Greeting scenario catches broken reconcilers', () => {
  it('a create without get-or-create: a converged reconcile still writes', async () => {
    const report = await searchConformance(withMutant(createAlways), { numRuns: 10, seed: 47 });
    expect(report.failure?.violation).toMatch(/^a converged reconcile wrote: create ConfigMap/);
  }, 60_000);

  it('status written before the ConfigMap, then trusted: caught only by a crash in between', async () => {
    const report = await searchConformance(withMutant(statusFirst, quiet), { numRuns: 60, seed: 47 });
    expect(report.failure?.violation).toMatch(/did not converge within .*: no ConfigMap/);
    // Shrunk to what matters: the process dies as its status write is committed.
    expect(report.failure?.schedule.slots.flat()).toContainEqual({ kind: 'crash', afterWrites: 1 });
    expect(formatFailure(report)).toContain('replay: checkConformance(scenario, { seed: 47, path:');
  }, 120_000);

  it('a ConfigMap without owner reference: never repaired once deleted', async () => {
    const report = await searchConformance(withMutant(unowned), { numRuns: 10, seed: 47 });
    expect(report.failure?.violation).toMatch(/did not converge .*: no ConfigMap for early/);
  }, 60_000);

  it('a ConfigMap without owner reference: left behind after its Greeting is deleted', async () => {
    // A scenario that does not look at owners still catches the leak, at teardown.
    const careless = { ...withMutant(unowned, quiet), converged: () => true };
    const report = await searchConformance(careless, { numRuns: 5, seed: 47 });
    expect(report.failure?.violation).toMatch(/left behind: ConfigMap default\/early-greeting/);
  }, 60_000);
});
