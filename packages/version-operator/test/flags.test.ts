/** The version operator's own flags: durations parsed, unusable values refused by flag name. */
import { describe, expect, it } from 'vitest';
import { parseVersionOperatorArgs, versionOperatorOptionsFromFlags } from '../src/index.js';

describe('versionOperatorOptionsFromFlags', () => {
  it('parses the poll interval and the migration stall timeout', () => {
    expect(
      versionOperatorOptionsFromFlags({ rolloutPollInterval: '2s', migrationStallTimeout: '10m' }),
    ).toEqual({
      rolloutPollMs: 2_000,
      migrationStallMs: 600_000,
    });
  });

  it('refuses a stall timeout that is not a positive duration, naming the flag', () => {
    for (const bad of ['0s', 'soon', '-1m']) {
      expect(() =>
        versionOperatorOptionsFromFlags({ rolloutPollInterval: '2s', migrationStallTimeout: bad }),
      ).toThrow(/--migration-stall-timeout/);
    }
  });
});

describe('parseVersionOperatorArgs', () => {
  const io = {
    exit: (code: number): never => {
      throw new Error(`exit ${code}`);
    },
    output: { writeOut: () => {}, writeErr: () => {} },
  };

  it("parses main's command line: its Lease by default, and its own options", () => {
    const line = parseVersionOperatorArgs(['--leader-elect', '--rollout-poll-interval', '3s'], io);
    expect(line.standard.leaderElectionId).toBe('capstan-version-operator');
    expect(line.options.rolloutPollMs).toBe(3_000);
  });

  it('refuses an unusable value by its flag, and an unknown flag through exit', () => {
    expect(() => parseVersionOperatorArgs(['--migration-stall-timeout', 'soon'], io)).toThrow(
      /--migration-stall-timeout/,
    );
    expect(() => parseVersionOperatorArgs(['--no-such-flag'], io)).toThrow('exit');
  });
});
