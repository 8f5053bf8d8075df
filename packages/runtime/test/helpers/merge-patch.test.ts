import { describe, expect, it } from 'vitest';
import { conditionalMergePatch } from '../../src/helpers/index.js';

describe('conditionalMergePatch', () => {
  it('carries the resourceVersion it was computed from, and only the edits there are', () => {
    expect(conditionalMergePatch('42', { annotations: { a: 'x', b: null }, labels: {} })).toEqual({
      metadata: { resourceVersion: '42', annotations: { a: 'x', b: null } },
    });
    expect(conditionalMergePatch('7', { labels: { l: 'v' } }, { spec: { unschedulable: true } })).toEqual({
      metadata: { resourceVersion: '7', labels: { l: 'v' } },
      spec: { unschedulable: true },
    });
  });

  it('drops the precondition only when no version is known', () => {
    expect(conditionalMergePatch(undefined, { annotations: { a: 'x' } })).toEqual({
      metadata: { annotations: { a: 'x' } },
    });
  });
});
