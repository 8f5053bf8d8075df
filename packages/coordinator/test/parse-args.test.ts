/** main's command line, parsed as main parses it: the standard options and the coordinator's. */
import { describe, expect, it } from 'vitest';
import { parseCoordinatorArgs } from '../src/index.js';

const io = {
  exit: (code: number): never => {
    throw new Error(`exit ${code}`);
  },
  output: { writeOut: () => {}, writeErr: () => {} },
};

describe('parseCoordinatorArgs', () => {
  it('uses its own Lease by default and puts the fence in the leader-election namespace', () => {
    const line = parseCoordinatorArgs(
      ['--leader-elect', '--leader-election-namespace', 'ops', '--default-max-unavailable', '2'],
      io,
    );
    expect(line.standard.leaderElectionId).toBe('capstan-coordinator');
    expect(line.options.namespace).toBe('ops');
    expect(line.options.defaultGroup?.maxUnavailable).toBe(2);
  });

  it('takes node and group selectors as label selectors, and names the flag of a malformed one', () => {
    const line = parseCoordinatorArgs(
      ['--node-selector', 'pool=a', '--group-selector', 'shard in (a,b)'],
      io,
    );
    expect(line.options.nodeSelector).toBe('pool=a');
    expect(line.options.groupSelector).toBe('shard in (a,b)');
    expect(parseCoordinatorArgs([], io).options.groupSelector).toBeUndefined();
    expect(() => parseCoordinatorArgs(['--group-selector', 'shard in (a'], io)).toThrow(
      /--group-selector "shard in \(a"/,
    );
    expect(() => parseCoordinatorArgs(['--node-selector', '=a'], io)).toThrow(/--node-selector/);
  });

  it('refuses an unusable value by its flag, and an unknown flag through exit', () => {
    expect(() => parseCoordinatorArgs(['--protocol', 'kured'], io)).toThrow(/--protocol/);
    expect(() => parseCoordinatorArgs(['--no-such-flag'], io)).toThrow('exit');
  });
});
