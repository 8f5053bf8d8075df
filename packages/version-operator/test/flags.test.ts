/** The version operator's own flags: durations parsed, unusable values refused by flag name. */
import { describe, expect, it } from 'vitest';
import { versionOperatorOptionsFromFlags } from '../src/index.js';

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
