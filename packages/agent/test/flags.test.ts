import { parseStandardOptions } from '@capstan/runtime';
import { describe, expect, it } from 'vitest';
import { type AgentFlags, addAgentFlags, agentOptionsFromFlags, parseAgentArgs } from '../src/flags.js';
import { SentinelCommandSource } from '../src/sources/sentinel-command-source.js';
import { SentinelFileSource } from '../src/sources/sentinel-file-source.js';
import { UpdateEngineSource } from '../src/sources/update-engine-source.js';

/** Parses `argv`; a usage error throws `exit 2`, its message appended to `errors`. */
const parse = (argv: string[], errors: string[] = []) =>
  parseStandardOptions<AgentFlags>(argv, {
    name: 'capstan-agent',
    extend: addAgentFlags,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
    output: { writeOut: () => {}, writeErr: (text) => errors.push(text) },
  });

describe('agent flags', () => {
  it('defaults: update_engine, capstan protocol, 10m drain timeout, pod grace periods, no force', () => {
    const { extra } = parse(['--node-name', 'worker-1']);
    const options = agentOptionsFromFlags(extra);
    expect(options).toMatchObject({
      nodeName: 'worker-1',
      protocol: 'capstan',
      osReleasePath: '/etc/os-release',
      drainTimeoutMs: 600_000,
      drainGracePeriodSeconds: -1,
      forceReboot: false,
      failureBackoffMs: 300_000,
    });
    expect(options.source).toBeInstanceOf(UpdateEngineSource);
  });

  it('selects sentinel sources, the FLUO protocol and drain settings', () => {
    const file = agentOptionsFromFlags(
      parse(['--node-name', 'n', '--source', 'file', '--reboot-sentinel', '/run/x', '--protocol', 'fluo'])
        .extra,
    );
    expect(file.source).toBeInstanceOf(SentinelFileSource);
    expect((file.source as SentinelFileSource).path).toBe('/run/x');
    expect(file.protocol).toBe('fluo');
    const command = agentOptionsFromFlags(
      parse([
        '--node-name=n',
        '--source=command',
        '--reboot-sentinel-command',
        'test -f /run/reboot',
        '--drain-timeout=90s',
        '--drain-grace-period=5s',
        '--force-reboot',
      ]).extra,
    );
    expect(command.source).toBeInstanceOf(SentinelCommandSource);
    expect(command).toMatchObject({ drainTimeoutMs: 90_000, drainGracePeriodSeconds: 5, forceReboot: true });
  });

  it('refuses a bad protocol or source, and a missing node name', () => {
    expect(() => parse(['--protocol', 'kured'])).toThrow('exit 2');
    expect(() => parse(['--source', 'magic'])).toThrow('exit 2');
    const saved = process.env.NODE_NAME;
    delete process.env.NODE_NAME;
    try {
      expect(() => agentOptionsFromFlags(parse([]).extra)).toThrow(/--node-name/);
    } finally {
      if (saved !== undefined) process.env.NODE_NAME = saved;
    }
    expect(() => agentOptionsFromFlags(parse(['--node-name=n', '--source=command']).extra)).toThrow(
      /--reboot-sentinel-command/,
    );
  });

  it('bounds every duration flag: none longer than a timer keeps, none shorter than it means', () => {
    const errors: string[] = [];
    const parseErr = (argv: string[]) => parse(argv, errors);
    for (const flag of [
      '--sentinel-interval',
      '--drain-timeout',
      '--drain-grace-period',
      '--failure-backoff',
    ]) {
      errors.length = 0;
      expect(() => parseErr([`${flag}=600h`])).toThrow('exit 2');
      expect(errors.join('')).toContain(`${flag} 600h is too long: at most 596h31m23.647s (about 24.8 days`);
      // The longest accepted value is the timer's limit itself.
      expect(() => parseErr([`${flag}=596h31m23s`])).not.toThrow();
    }
    errors.length = 0;
    expect(() => parseErr(['--sentinel-interval=0'])).toThrow('exit 2');
    expect(errors.join('')).toContain('--sentinel-interval 0 is too short: at least 100ms');
    expect(() => parseErr(['--failure-backoff=-5s'])).toThrow('exit 2');
    expect(() => parseErr(['--drain-grace-period=-5s'])).toThrow('exit 2');
    expect(parseErr(['--drain-grace-period=-1s']).extra.drainGracePeriod).toBe('-1s');
  });
});

describe('parseAgentArgs', () => {
  const io = {
    exit: (code: number): never => {
      throw new Error(`exit ${code}`);
    },
    output: { writeOut: () => {}, writeErr: () => {} },
  };

  it("parses main's command line: never leader election, the agent's options, the identity check", () => {
    const line = parseAgentArgs(['--node-name', 'worker-1', '--allow-unbound-token'], io);
    expect(line.standard.leaderElect).toBe(false);
    expect(line.options.agent.nodeName).toBe('worker-1');
    expect(line.options.identity).toEqual({ allowUnboundToken: true });
  });

  it('refuses an unusable value by its flag, and an unknown flag through exit', () => {
    expect(() => parseAgentArgs(['--node-name', 'n', '--boot-id-path', '/nonexistent/boot_id'], io)).toThrow(
      /--boot-id-path/,
    );
    expect(() => parseAgentArgs(['--node-name', 'n', '--leader-elect'], io)).toThrow('exit');
    expect(() => parseAgentArgs(['--node-name', 'n', '--no-such-flag'], io)).toThrow('exit');
  });
});
