import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LabelSelectorSpec } from '../../src/client/builtin.js';
import { parseLabelSelector } from '../../src/client/selectors.js';
import { labelSelectorFromSpec, matchesSelector, selectorProblems } from '../../src/helpers/index.js';

describe('label selectors as resources hold them', () => {
  it('ANDs matchLabels and expressions', () => {
    const sel = {
      matchLabels: { role: 'worker' },
      matchExpressions: [
        { key: 'zone', operator: 'In' as const, values: ['a', 'b'] },
        { key: 'gpu', operator: 'DoesNotExist' as const },
      ],
    };
    expect(matchesSelector(sel, { role: 'worker', zone: 'a' })).toBe(true);
    expect(matchesSelector(sel, { role: 'worker', zone: 'c' })).toBe(false);
    expect(matchesSelector(sel, { role: 'worker', zone: 'a', gpu: '' })).toBe(false);
    expect(matchesSelector({}, {})).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] }, {})).toBe(
      true,
    );
    expect(matchesSelector({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, { x: '' })).toBe(true);
  });

  it('matches nothing with an unknown operator, and says why', () => {
    const bad = { matchExpressions: [{ key: 'x', operator: 'Near' }] } as unknown as LabelSelectorSpec;
    expect(matchesSelector(bad, { x: '1' })).toBe(false);
    expect(labelSelectorFromSpec(bad)).toBeUndefined();
    expect(selectorProblems(bad, 'spec.nodeSelector')).toEqual([
      'spec.nodeSelector.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist',
    ]);
  });

  it('reports garbage instead of throwing', () => {
    expect(selectorProblems(undefined, 's')).toEqual([]);
    expect(selectorProblems(5, 's')).toEqual(['s: must be an object']);
    expect(selectorProblems({ matchLabels: [], matchExpressions: {} }, 's')).toEqual([
      's.matchLabels: must be a map of strings',
      's.matchExpressions: must be a list',
    ]);
    expect(
      selectorProblems(
        {
          matchLabels: { a: 1 },
          matchExpressions: [
            null,
            { key: '', operator: 'In', values: [] },
            { key: 'k', operator: 'Exists', values: ['v'] },
          ],
        },
        's',
      ),
    ).toEqual([
      's.matchLabels.a: must be a string',
      's.matchExpressions[0]: must be an object',
      's.matchExpressions[1].key: must be a non-empty string',
      's.matchExpressions[1].values: operator In needs at least one value',
      's.matchExpressions[2].values: operator Exists takes no values',
    ]);
  });

  it('agrees with the same selector written as text, on every label set', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const value = fc.constantFrom('1', '2', '3');
    const expression = fc.oneof(
      fc.record({
        key,
        operator: fc.constantFrom('In' as const, 'NotIn' as const),
        values: fc.uniqueArray(value, { minLength: 1 }),
      }),
      fc.record({ key, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
    );
    const spec = fc.record({
      matchLabels: fc.dictionary(key, value, { maxKeys: 2 }),
      matchExpressions: fc.array(expression, { maxLength: 3 }),
    });
    const text = (s: LabelSelectorSpec): string =>
      [
        ...Object.entries(s.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`),
        ...(s.matchExpressions ?? []).map((e) =>
          e.operator === 'Exists'
            ? e.key
            : e.operator === 'DoesNotExist'
              ? `!${e.key}`
              : `${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`,
        ),
      ].join(',');
    fc.assert(
      fc.property(spec, fc.dictionary(key, value), (s, labels) => {
        expect(selectorProblems(s, 's')).toEqual([]);
        expect(matchesSelector(s, labels)).toBe(parseLabelSelector(text(s)).matches(labels));
      }),
    );
  });
});
