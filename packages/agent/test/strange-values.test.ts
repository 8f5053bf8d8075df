/**
 * Strange values never make the agent wait for ever or spin: a failure dated in the future is
 * refused (the backoff never runs longer than configured), and the runtime's clock takes any
 * delay, however long, without Node's overflow (which fires at once and warns in a loop).
 */
import {
  AGENT_FAILURE_ANNOTATION,
  capstanProtocol,
  coordinatorKeys,
  formatAgentFailure,
} from '@capstan/reboot-protocol';
import { realClock } from '@capstan/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AgentMemory, type DecisionConfig, INITIAL_MEMORY } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';

const k = capstanProtocol.annotations;
const NOW = 1_700_000_000_000;
const BOOTED: AgentMemory = { ...INITIAL_MEMORY, booted: true };
const config: DecisionConfig = {
  protocol: capstanProtocol,
  drainTimeoutMs: 10_000,
  forceReboot: false,
  failureBackoffMs: 60_000,
  podPollMs: 500,
};

function grantedWithFailureAt(at: number) {
  return {
    name: 'n1',
    labels: { [capstanProtocol.labels.rebootNeeded]: 'true' },
    unschedulable: false,
    bootID: 'boot-1',
    annotations: {
      [k.rebootNeeded]: 'true',
      [k.rebootOk]: 'true',
      [coordinatorKeys.grantedBootId]: 'boot-1',
      [AGENT_FAILURE_ANNOTATION]: formatAgentFailure('DrainFailed', at, 'x'),
    },
  };
}

describe('a failure timestamp', () => {
  it('never makes the backoff longer than the configured one', () => {
    fc.assert(
      fc.property(fc.integer({ min: -400 * 86_400_000, max: 400 * 86_400_000 }), (offset) => {
        const n = grantedWithFailureAt(NOW + offset);
        const d = decide(
          { now: NOW, node: n, source: { rebootNeeded: true }, sourceKnown: true, os: undefined },
          BOOTED,
          config,
        );
        if (d.action.kind === 'wait' && d.action.recheckAfterMs !== undefined) {
          expect(d.action.recheckAfterMs).toBeGreaterThan(0);
          expect(d.action.recheckAfterMs).toBeLessThanOrEqual(config.failureBackoffMs);
        }
      }),
    );
  });

  it('in the future is refused: the next cycle starts now', () => {
    const n = grantedWithFailureAt(NOW + 30 * 86_400_000);
    const d = decide(
      { now: NOW, node: n, source: { rebootNeeded: true }, sourceKnown: true, os: undefined },
      BOOTED,
      config,
    );
    expect(d.phase).toBe('Cordoning');
  });
});

describe('the runtime clock', () => {
  it('waits out a delay beyond 2^31-1 ms instead of firing at once with an overflow warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let fired = 0;
    const handle = realClock.setTimeout(() => fired++, 30 * 86_400_000);
    const forever = realClock.setTimeout(() => fired++, Number.POSITIVE_INFINITY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    realClock.clearTimeout(handle);
    realClock.clearTimeout(forever);
    process.off('warning', onWarning);
    expect(fired).toBe(0);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('still fires short delays, and at once for a negative or NaN one', async () => {
    const order: string[] = [];
    realClock.setTimeout(() => order.push('nan'), Number.NaN);
    realClock.setTimeout(() => order.push('negative'), -5);
    realClock.setTimeout(() => order.push('10ms'), 10);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(order.sort()).toEqual(['10ms', 'nan', 'negative']);
  });
});
