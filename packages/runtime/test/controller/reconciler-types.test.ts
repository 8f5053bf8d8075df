/**
 * The ways people write a reconciler's type all type-check against `Reconciler`, and each one's
 * result is classified as it says. The compile-time half is checked by `tsc -p tsconfig.tests.json`
 * (part of `npm run lint`): narrowing `Reconciler.reconcile`'s union breaks these lines.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/controller/outcome.js';
import type { ReconcileContext, Reconciler, Result } from '../../src/controller/reconciler.js';

const context = {} as ReconcileContext;
const request = { namespace: 'default', name: 'a' };

const written: Record<string, Reconciler> = {
  'no annotation, no return': { reconcile: async () => {} },
  'Promise<void>': { reconcile: async (): Promise<void> => {} },
  // biome-ignore lint/suspicious/noConfusingVoidType: the very annotation this test keeps working
  'Promise<Result | void>': { reconcile: async (): Promise<Result | void> => ({ requeue: true }) },
  'Promise<Result | undefined>': {
    reconcile: async (): Promise<Result | undefined> => ({ requeueAfter: 5_000 }),
  },
  'Promise<Result>': { reconcile: async (): Promise<Result> => ({}) },
};

describe('a reconciler written with each usual type', () => {
  it('is classified by what it resolves to', async () => {
    const kinds: Record<string, string> = {};
    for (const [name, reconciler] of Object.entries(written)) {
      kinds[name] = classify(await reconciler.reconcile(request, context), undefined, false).kind;
    }
    expect(kinds).toEqual({
      'no annotation, no return': 'success',
      'Promise<void>': 'success',
      'Promise<Result | void>': 'requeue',
      'Promise<Result | undefined>': 'requeue_after',
      'Promise<Result>': 'success',
    });
  });
});
