import { parseStandardOptions } from '@capstan/runtime';
import { describe, expect, it } from 'vitest';
import { type AgentFlags, addAgentFlags, agentOptionsFromFlags } from '../src/flags.js';
import { SentinelCommandSource } from '../src/sources/sentinel-command-source.js';
import { SentinelFileSource } from '../src/sources/sentinel-file-source.js';
import { UpdateEngineSource } from '../src/sources/update-engine-source.js';

const parse = (argv: string[]) =>
  parseStandardOptions<AgentFlags>(argv, {
    name: 'capstan-agent',
    extend: addAgentFlags,
    exit: (code) => {
      throw new Error(`exit ${code}`);
    },
    output: { writeOut: () => {}, writeErr: () => {} },
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
});
