import { describe, expect, it } from 'vitest';
import { eventually } from '../../src/testing/index.js';

/** The error `p` rejects with (fails if it resolves). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe('eventually', () => {
  it('resolves with the first value other than undefined and false', async () => {
    const answers = [undefined, false, 0, 'later'] as const;
    let calls = 0;
    const value = await eventually(async () => answers[calls++], { intervalMs: 1, timeoutMs: 1_000 });
    // 0 is a value: only undefined and false mean "not yet".
    expect(value).toBe(0);
    expect(calls).toBe(3);
  });

  it('takes synchronous probes and resolves a condition with true', async () => {
    let n = 0;
    const value: true = await eventually(() => ++n >= 3, { intervalMs: 1, timeoutMs: 1_000 });
    expect(value).toBe(true);
    expect(n).toBe(3);
  });

  it('retries a probe that throws or rejects until it returns a value', async () => {
    let calls = 0;
    const value = await eventually(
      async () => {
        calls++;
        if (calls === 1) throw new Error('not found');
        if (calls === 2) return Promise.reject(new Error('conflict'));
        return { calls };
      },
      { intervalMs: 1, timeoutMs: 1_000 },
    );
    expect(value).toEqual({ calls: 3 });
  });

  it('waits intervalMs between attempts', async () => {
    const at: number[] = [];
    await eventually(() => at.push(Date.now()) >= 3, { intervalMs: 30, timeoutMs: 1_000 });
    expect(at).toHaveLength(3);
    expect((at[2] as number) - (at[0] as number)).toBeGreaterThanOrEqual(55);
  });

  it('times out naming what was awaited and the last error, which is the cause', async () => {
    let calls = 0;
    const started = Date.now();
    const err = await failure(
      eventually(
        () => {
          calls++;
          throw new Error(`attempt ${calls} failed`);
        },
        { what: 'the widget', timeoutMs: 100, intervalMs: 10 },
      ),
    );
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe(
      `timed out after 100 ms waiting for the widget; last error: attempt ${calls} failed`,
    );
    expect(err.cause).toBeInstanceOf(Error);
    expect((err.cause as Error).message).toBe(`attempt ${calls} failed`);
    expect(calls).toBeGreaterThan(2);
    expect(elapsed).toBeGreaterThanOrEqual(95);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('times out without a cause when no attempt threw, and appends the details', async () => {
    const err = await failure(
      eventually(() => false, {
        timeoutMs: 30,
        intervalMs: 5,
        details: () => 'last value: 41',
      }),
    );
    expect(err.message).toBe('timed out after 30 ms waiting for condition\nlast value: 41');
    expect(err.cause).toBeUndefined();
  });

  it('keeps the last thrown error even when later attempts only return "not yet"', async () => {
    let calls = 0;
    const err = await failure(
      eventually(
        () => {
          calls++;
          if (calls === 1) throw new Error('boom');
          return undefined;
        },
        { what: 'x', timeoutMs: 40, intervalMs: 5 },
      ),
    );
    expect(err.message).toBe('timed out after 40 ms waiting for x; last error: boom');
    expect((err.cause as Error).message).toBe('boom');
  });

  it('makes one attempt even with a zero timeout', async () => {
    expect(await eventually(() => 'now', { timeoutMs: 0 })).toBe('now');
    await expect(eventually(() => undefined, { timeoutMs: 0, what: 'nothing' })).rejects.toThrow(
      'timed out after 0 ms waiting for nothing',
    );
  });
});
