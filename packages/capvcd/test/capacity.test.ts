/** The template capacity rule: own sizing first, then the policy's; published whole or not at all. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownSizing, templateCapacity } from '../src/decide/capacity.js';

const size = fc.option(fc.oneof(fc.integer({ min: -2, max: 64 }), fc.constant(1.5)), { nil: undefined });
const policySize = fc.option(fc.integer({ min: 0, max: 65536 }), { nil: null });

describe('templateCapacity', () => {
  it('takes each resource from the template, else the policy, and publishes only both', () => {
    fc.assert(
      fc.property(
        size,
        size,
        fc.option(fc.record({ cpuCount: policySize, memoryMb: policySize }), { nil: undefined }),
        (numCPUs, memoryMiB, policy) => {
          const own = {
            ...(numCPUs !== undefined ? { numCPUs } : {}),
            ...(memoryMiB !== undefined ? { memoryMiB } : {}),
          };
          const out = templateCapacity(own, policy, 'p');
          const valid = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
          const cpu = valid(numCPUs) ? numCPUs : policy?.cpuCount;
          const mem = valid(memoryMiB) ? memoryMiB : policy?.memoryMb;
          if (valid(cpu) && valid(mem)) {
            expect(out).toEqual({ kind: 'known', capacity: { cpu: String(cpu), memory: `${mem}Mi` } });
          } else {
            expect(out.kind).toBe('unknown');
            if (out.kind === 'unknown') expect(out.reason).toBe(policy ? 'PolicyIncomplete' : 'NoSizing');
          }
        },
      ),
    );
  });

  it('reads the sizing fields only when they are numbers', () => {
    expect(ownSizing({ numCPUs: 4, memoryMiB: 8192, sizingPolicy: 'x' })).toEqual({
      numCPUs: 4,
      memoryMiB: 8192,
    });
    expect(ownSizing({ numCPUs: '4' })).toEqual({});
    expect(templateCapacity({}, { cpuCount: 2, memoryMb: null }, 'half')).toEqual({
      kind: 'unknown',
      reason: 'PolicyIncomplete',
      message: 'sizing policy half fixes no memory',
    });
  });
});
