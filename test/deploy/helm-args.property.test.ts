/**
 * The chart's rule for turning `coordinator.config` into arguments, as a property: for any config
 * the schema admits, the Deployment's args are the merged values' flags in key order (null: left
 * out, true: the bare flag, false: left out, a list: the flag repeated, a number: written whole)
 * followed by `extraArgs`, as the real helm renders them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root } from '../packaging/packages.js';
import { container, renderChart } from './chart.js';
import { buildTools, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);

type Value = string | number | boolean | null | string[];

const defaults = (
  parse(readFileSync(join(root, 'deploy/helm/capstan/values.yaml'), 'utf8')) as {
    coordinator: { config: Record<string, Value> };
  }
).coordinator.config;

/** The arguments the rule gives for a config (already merged over the defaults). */
function expectedArgs(config: Record<string, Value>, extraArgs: string[]): string[] {
  const args: string[] = [];
  for (const flag of Object.keys(config).sort()) {
    const value = config[flag] as Value;
    if (value === null || value === false) continue;
    if (value === true) args.push(`--${flag}`);
    else if (Array.isArray(value)) args.push(...value.map((v) => `--${flag}=${v}`));
    else args.push(`--${flag}=${value}`);
  }
  return [...args, ...extraArgs];
}

/** Helm's merge: a user's null removes the key, anything else replaces it (lists whole). */
function merged(user: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = { ...defaults, ...user };
  for (const [key, value] of Object.entries(user)) if (value === null) delete out[key];
  return out;
}

const text = fc.string({
  unit: fc.constantFrom(...'abcXYZ019 -_./:=,%"\\\'{}#*&!'.split('')),
  maxLength: 12,
});
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
/** Values for flags of each type the schema gives them. */
const config = fc.record(
  {
    context: nullable(text),
    'leader-election-id': nullable(text),
    'node-selector': nullable(text),
    'leader-elect': nullable(fc.boolean()),
    'enable-debug-endpoint': nullable(fc.boolean()),
    'fleetlock-allow-missing-group': nullable(fc.boolean()),
    'default-before-reboot-annotation': nullable(fc.array(text, { maxLength: 3 })),
    'default-order': nullable(fc.integer({ min: -1e9, max: 1e9 })),
    'default-max-unavailable': nullable(fc.integer({ min: 0, max: 1e8 })),
  },
  { requiredKeys: [] },
);

describe('coordinator.config → args', () => {
  it('is the merged config in key order, then extraArgs, for any admissible config', async () => {
    await fc.assert(
      fc.asyncProperty(config, fc.array(text, { maxLength: 2 }), async (user, extraArgs) => {
        const objects = await renderChart('capstan-system', { coordinator: { config: user, extraArgs } });
        const args = container(objects, 'Deployment', 'capstan-coordinator').args;
        expect(args).toEqual(expectedArgs(merged(user as Record<string, Value>), extraArgs));
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
