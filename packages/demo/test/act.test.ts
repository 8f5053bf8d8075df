/**
 * The demo's waits end: a look that never answers (a request the apiserver never completes) fails
 * at the deadline, saying what was awaited, as a look that keeps answering false does.
 */
import type { Logger } from '@capstan/runtime';
import { describe, expect, it } from 'vitest';
import { ActContext } from '../src/act.js';
import type { LiveView } from '../src/view.js';

const context = () =>
  new ActContext({} as LiveView, { error: () => {} } as unknown as Logger, 60_000, undefined);

describe('ActContext.waitUntil', () => {
  it('fails at its deadline when the look never answers', async () => {
    const hung = () => new Promise<boolean>(() => {});
    await expect(context().waitUntil('a hung look', hung, () => {}, Date.now() + 200)).rejects.toThrow(
      /timed out at .* waiting for a hung look/,
    );
  });

  it('fails at its deadline when the look keeps answering false', async () => {
    await expect(
      context().waitUntil(
        'never true',
        () => false,
        () => {},
        Date.now() + 300,
      ),
    ).rejects.toThrow(/waiting for never true/);
  });

  it('returns once the look holds', async () => {
    let looks = 0;
    await context().waitUntil(
      'the third look',
      () => ++looks >= 3,
      () => {},
      Date.now() + 10_000,
    );
    expect(looks).toBe(3);
  });
});
