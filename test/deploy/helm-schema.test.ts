/**
 * The chart's values schema: it refuses what the chart would otherwise ignore or render wrong,
 * saying where; and its flag lists are the operators' own (their parsers' `--help`), so a flag
 * added to an operator without a value in the chart fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { root } from '../packaging/packages.js';
import { CHART, helpFlags, renderChart, schemaFlags } from './chart.js';
import { buildTools, runTool, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);
describe('helm lint --strict', () => {
  it.each(['values.yaml', ...readdirSync(join(root, CHART, 'examples')).map((f) => `examples/${f}`)])(
    'passes with %s',
    async (file) => {
      const out = await runTool('helm', ['lint', '--strict', CHART, '-f', join(CHART, file)]);
      expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    },
  );
});

describe('values.schema.json refuses a bad value, saying where', () => {
  const refused: Array<[string, object, RegExp]> = [
    ['an unknown top-level key', { namesapce: { create: true } }, /additional propert.*'namesapce'/],
    [
      'an unknown flag',
      { coordinator: { config: { 'max-unavailable': 2 } } },
      /\/coordinator\/config.*'max-unavailable'/,
    ],
    ['an unknown key of the agent', { agent: { tolerations: [], resource: {} } }, /\/agent.*'resource'/],
    ['a wrong type', { coordinator: { replicas: 'two' } }, /\/coordinator\/replicas.*(integer|number)/],
    ['a bad source', { agent: { source: { type: 'apt' } } }, /\/agent\/source\/type/],
    [
      'a sentinel command without its command',
      { agent: { source: { type: 'sentinel-command' } } },
      /\/agent\/source\/sentinelCommand\/command/,
    ],
    [
      'a duration Go cannot read',
      { agent: { config: { 'drain-timeout': '10 minutes' } } },
      /\/agent\/config\/drain-timeout/,
    ],
    [
      'a bad log level',
      { coordinator: { config: { 'log-level': 'loud' } } },
      /\/coordinator\/config\/log-level/,
    ],
    [
      'a budget that is neither a count nor a percentage',
      { coordinator: { config: { 'default-max-unavailable': 'half' } } },
      /\/coordinator\/config\/default-max-unavailable/,
    ],
    [
      'both minAvailable and maxUnavailable',
      { coordinator: { podDisruptionBudget: { maxUnavailable: 1 } } },
      /\/coordinator\/podDisruptionBudget/,
    ],
    [
      'a string for a switch',
      { metrics: { serviceMonitor: { enabled: 'yes' } } },
      /\/metrics\/serviceMonitor\/enabled/,
    ],
    [
      'an unknown key of a subchart',
      { capvcd: { enabled: true, replica: 1 } },
      /capvcd:[\s\S]*'replica' not allowed/,
    ],
  ];
  it.each(refused)('%s', async (_what, values, message) => {
    const failure = renderChart('capstan-system', values).then(
      () => 'rendered',
      (err: Error) => err.message,
    );
    const text = await failure;
    expect(text).toMatch(/values don't meet the specifications of the schema/);
    expect(text).toMatch(message);
  });
});

const values = (file: string) =>
  parse(readFileSync(join(root, file), 'utf8')) as Record<string, { config?: object } & object>;
const configKeys = (config: object | undefined) => Object.keys(config ?? {}).sort();

describe("the chart's flags are the operators' flags", () => {
  /** Flags the chart sets from agent.source rather than from agent.config. */
  const FROM_SOURCE = [
    'reboot-sentinel',
    'reboot-sentinel-command',
    'reboot-sentinel-needed-exit-codes',
    'reboot-sentinel-not-needed-exit-codes',
    'sentinel-host-namespaces',
    'source',
  ];

  it('coordinator.config: one key per flag of capstan-coordinator, in the schema and in values.yaml', async () => {
    const flags = await helpFlags('packages/coordinator/dist/main.js');
    expect(flags.length).toBeGreaterThan(20);
    expect(schemaFlags('deploy/helm/capstan/values.schema.json', 'coordinator')).toEqual(flags);
    expect(configKeys(values('deploy/helm/capstan/values.yaml').coordinator?.config)).toEqual(flags);
  });

  it('agent.config and agent.source: one key per flag of capstan-agent', async () => {
    const flags = await helpFlags('packages/agent/dist/main.js');
    const schema = schemaFlags('deploy/helm/capstan/values.schema.json', 'agent');
    expect([...schema, ...FROM_SOURCE].sort()).toEqual(flags);
    expect(configKeys(values('deploy/helm/capstan/values.yaml').agent?.config)).toEqual(schema);
  });

  it.each([
    ['version-operator', 'packages/version-operator/dist/main.js'],
    ['capvcd', 'packages/capvcd/dist/main.js'],
  ])('the %s subchart: one key per flag', async (chart, main) => {
    const flags = await helpFlags(main);
    expect(schemaFlags(`deploy/helm/capstan/charts/${chart}/values.schema.json`)).toEqual(flags);
    expect(configKeys(values(`deploy/helm/capstan/charts/${chart}/values.yaml`).config)).toEqual(flags);
  });
});
