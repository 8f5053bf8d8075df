/** The Greeting controller's command line, parsed as main parses it. */
import { describe, expect, it } from 'vitest';
import { parseGreetingArgs } from '../src/index.js';

const io = {
  exit: (code: number): never => {
    throw new Error(`exit ${code}`);
  },
  output: { writeOut: () => {}, writeErr: () => {} },
};

describe('parseGreetingArgs', () => {
  it('serves the webhooks only when asked, on its own Lease by default', () => {
    expect(parseGreetingArgs([], io).options.webhooks).toBe(false);
    const line = parseGreetingArgs(['--enable-webhooks', '--leader-elect'], io);
    expect(line.options.webhooks).toBe(true);
    expect(line.standard.leaderElectionId).toBe('greeting-controller');
  });

  it('refuses an unknown flag through exit', () => {
    expect(() => parseGreetingArgs(['--no-such-flag'], io)).toThrow('exit');
  });
});
