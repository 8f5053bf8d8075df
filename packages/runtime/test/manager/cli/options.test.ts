import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/helpers/duration.js';
import { type ParseOptionsConfig, parseStandardOptions } from '../../../src/manager/cli/options.js';

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Parses with captured output; an exit becomes an {@link Exit} thrown. */
function parse(argv: string[], config: Partial<ParseOptionsConfig> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const run = () =>
    parseStandardOptions(argv, {
      name: 'widget-operator',
      description: 'Keeps widgets in shape',
      exit: (code) => {
        throw new Exit(code);
      },
      output: { writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) },
      ...config,
    });
  return { run, out, err };
}

function exitOf(fn: () => unknown): Exit {
  try {
    fn();
  } catch (e) {
    if (e instanceof Exit) return e;
    throw e;
  }
  throw new Error('did not exit');
}

describe('parseDuration', () => {
  it('reads Go durations into milliseconds', () => {
    expect(parseDuration('15s')).toBe(15_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('2h45m')).toBe(9_900_000);
    expect(parseDuration('250us')).toBeCloseTo(0.25, 9);
    expect(parseDuration('1µs')).toBeCloseTo(0.001, 9);
    expect(parseDuration('100ns')).toBeCloseTo(0.0001, 9);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('-3s')).toBe(-3000);
    expect(parseDuration('.5s')).toBe(500);
  });

  it('says what is wrong', () => {
    expect(() => parseDuration('15')).toThrow('invalid duration "15": missing unit (ns, us, ms, s, m, h)');
    expect(() => parseDuration('15sec')).toThrow('invalid duration "15sec": unknown unit "sec"');
    expect(() => parseDuration('1m30')).toThrow(/missing unit/);
    expect(() => parseDuration('s')).toThrow('invalid duration "s": expected a number at "s"');
    expect(() => parseDuration('')).toThrow('invalid duration "": empty');
    expect(() => parseDuration('1d')).toThrow(/unknown unit "d"/);
  });

  it('formats as Go prints', () => {
    expect(formatDuration(15_000)).toBe('15s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(500)).toBe('500ms');
    expect(formatDuration(3_600_000)).toBe('1h0m0s');
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(1500)).toBe('1.5s');
    for (const ms of [1, 999, 1000, 61_500, 7_261_000]) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});

describe('parseStandardOptions', () => {
  it('gives controller-runtime defaults', () => {
    const { standard, extra, args } = parse([]).run();
    expect(standard).toEqual({
      leaderElect: false,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      metricsBindAddress: ':8080',
      metricsSecure: false,
      metricsCertName: 'tls.crt',
      metricsCertKey: 'tls.key',
      healthProbeBindAddress: ':8081',
      enableDebugEndpoint: false,
      debugBindAddress: '0',
      logLevel: 'info',
      logFormat: 'json',
    });
    expect(extra).toEqual({});
    expect(args).toEqual([]);
  });

  it('reads every standard flag', () => {
    const { standard } = parse([
      '--kubeconfig',
      '/tmp/kc',
      '--context=dev',
      '--namespace',
      'team-a',
      '--leader-elect',
      '--leader-election-id',
      'widgets-lock',
      '--leader-election-namespace',
      'ops',
      '--leader-elect-lease-duration',
      '30s',
      '--leader-elect-renew-deadline=20s',
      '--leader-elect-retry-period',
      '1500ms',
      '--metrics-bind-address',
      '127.0.0.1:9090',
      '--metrics-secure',
      '--metrics-cert-path',
      '/certs',
      '--metrics-cert-name=m.crt',
      '--metrics-cert-key',
      'm.key',
      '--health-probe-bind-address',
      '0',
      '--enable-debug-endpoint',
      '--debug-bind-address',
      ':6060',
      '--log-level',
      'debug',
      '--log-format',
      'pretty',
    ]).run();
    expect(standard).toEqual({
      kubeconfig: '/tmp/kc',
      context: 'dev',
      namespace: 'team-a',
      leaderElect: true,
      leaderElectionId: 'widgets-lock',
      leaderElectionNamespace: 'ops',
      leaseDurationMs: 30_000,
      renewDeadlineMs: 20_000,
      retryPeriodMs: 1_500,
      metricsBindAddress: '127.0.0.1:9090',
      metricsSecure: true,
      metricsCertPath: '/certs',
      metricsCertName: 'm.crt',
      metricsCertKey: 'm.key',
      healthProbeBindAddress: '0',
      enableDebugEndpoint: true,
      debugBindAddress: ':6060',
      logLevel: 'debug',
      logFormat: 'pretty',
    });
  });

  it('takes boolean flags with an explicit value, as Go flags do', () => {
    expect(parse(['--leader-elect=false']).run().standard.leaderElect).toBe(false);
    const on = parse(['--leader-elect=true', '--leader-election-id', 'x']).run().standard;
    expect(on.leaderElect).toBe(true);
    expect(parse(['--enable-debug-endpoint=false']).run().standard.enableDebugEndpoint).toBe(false);
  });

  it('lets the operator add its own flags and defaults, returned apart from the standard ones', () => {
    const { standard, extra } = parse(['--max-unavailable', '3', '--dry-run', '--leader-elect'], {
      defaults: { leaderElectionId: 'widget-operator-lock', metricsBindAddress: ':9443' },
      extend: (cmd) => {
        cmd.option('--max-unavailable <n>', 'nodes at once', (v) => Number.parseInt(v, 10), 1);
        cmd.option('--dry-run', 'change nothing');
        cmd.option('--region <name>', 'region');
      },
    }).run();
    expect(extra).toEqual({ maxUnavailable: 3, dryRun: true });
    expect(standard.leaderElectionId).toBe('widget-operator-lock');
    expect(standard.metricsBindAddress).toBe(':9443');
    expect(standard.leaderElect).toBe(true);
  });

  it('accepts process.argv as is with from: node', () => {
    const { standard } = parse(['node', 'main.js', '--namespace', 'x'], { from: 'node' }).run();
    expect(standard.namespace).toBe('x');
  });

  it('prints usage with every flag and its default, and exits 0, on --help', () => {
    const p = parse(['--help'], {
      extend: (cmd) => cmd.option('--max-unavailable <n>', 'nodes rebooting at once'),
    });
    expect(exitOf(p.run).code).toBe(0);
    const usage = p.out.join('');
    expect(usage).toContain('Usage: widget-operator [options]');
    expect(usage).toContain('Keeps widgets in shape');
    for (const flag of [
      '--kubeconfig <path>',
      '--context <name>',
      '--namespace <ns>',
      '--leader-elect [bool]',
      '--leader-election-id <name>',
      '--leader-election-namespace <ns>',
      '--leader-elect-lease-duration <duration>',
      '--leader-elect-renew-deadline <duration>',
      '--leader-elect-retry-period <duration>',
      '--metrics-bind-address <address>',
      '--health-probe-bind-address <address>',
      '--enable-debug-endpoint [bool]',
      '--debug-bind-address <address>',
      '--log-level <level>',
      '--log-format <format>',
      '--max-unavailable <n>',
      '-h, --help',
    ]) {
      expect(usage).toContain(flag);
    }
    expect(usage).toContain('(default: "15s")');
    expect(usage).toContain('(default: ":8080")');
    expect(usage).toContain('(default: ":8081")');
  });

  it('keeps --version out of the extra options', () => {
    const { extra } = parse([], { version: '1.2.3' }).run();
    expect(extra).toEqual({});
  });

  it('prints the version and exits 0 on --version', () => {
    const p = parse(['--version'], { version: '1.2.3' });
    expect(exitOf(p.run).code).toBe(0);
    expect(p.out.join('')).toContain('1.2.3');
  });

  it('offers no leader election flags to a program that never elects', () => {
    const help = parse(['--help'], { leaderElection: false });
    expect(exitOf(help.run).code).toBe(0);
    expect(help.out.join('')).not.toContain('leader');
    expect(help.out.join('')).toContain('--metrics-bind-address');
    for (const flag of ['--leader-elect', '--leader-election-id=x', '--leader-elect-lease-duration=20s']) {
      const p = parse([flag], { leaderElection: false });
      expect(exitOf(p.run).code).toBe(2);
      expect(p.err.join('')).toContain(`unknown option '${flag}'`);
    }
    const { standard } = parse([], { leaderElection: false }).run();
    expect(standard).toMatchObject({ leaderElect: false, leaseDurationMs: 15_000, retryPeriodMs: 2_000 });
  });

  it.each([
    [['--leader-elect-lease-duration', '15'], /invalid duration "15": missing unit/],
    [['--leader-elect-retry-period', 'soon'], /invalid duration "soon": expected a number/],
    [['--leader-elect-renew-deadline', '-5s'], /must not be negative/],
    [['--metrics-bind-address', '8080'], /invalid bind address "8080"/],
    [['--log-level', 'verbose'], /allowed: trace, debug, info, warn, error, fatal, silent/],
    [['--log-format', 'xml'], /allowed: json, pretty/],
    [['--leader-elect=maybe'], /expected true or false/],
    [['--no-such-flag'], /unknown option '--no-such-flag'/],
    [['stray'], /too many arguments/],
    [['--leader-elect'], /--leader-election-id is required with --leader-elect/],
    [
      ['--leader-elect-lease-duration', '10s', '--leader-elect-renew-deadline', '10s'],
      /renew-deadline 10s must be shorter than --leader-elect-lease-duration 10s/,
    ],
    [
      ['--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '2s'],
      /renew-deadline 2s must be longer than 1.2 × --leader-elect-retry-period 2s/,
    ],
    [['--leader-elect-lease-duration', '500ms', '--leader-elect-renew-deadline', '400ms'], /at least 1s/],
    [['--kubeconfig'], /argument missing/],
  ])('rejects %j with a clear message and exit code 2', (argv, message) => {
    const p = parse(argv as string[]);
    expect(exitOf(p.run).code).toBe(2);
    const stderr = p.err.join('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('--help');
  });
});
