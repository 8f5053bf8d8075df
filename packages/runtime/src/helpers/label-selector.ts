/**
 * Label selectors as resources hold them (`metav1.LabelSelector`, {@link LabelSelectorSpec}):
 * validation that reports instead of throwing, and matching through the same requirements the
 * parsed text selectors of `client/selectors.ts` use, so both forms agree on every label set.
 */
import type { LabelSelectorSpec } from '../client/builtin.js';
import { type LabelRequirement, type LabelSelector, labelSelectorOf } from '../client/selectors.js';

const OPERATORS = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
} as const satisfies Record<string, LabelRequirement['operator']>;

type SpecOperator = keyof typeof OPERATORS;

const isSpecOperator = (op: unknown): op is SpecOperator =>
  typeof op === 'string' && Object.hasOwn(OPERATORS, op);

/**
 * Problems with a selector that would make it match wrongly, each prefixed by `path`; empty when
 * it is sound. Garbage (wrong types, unknown operators) is reported, never thrown.
 */
export function selectorProblems(selector: unknown, path: string): string[] {
  if (selector === undefined || selector === null) return [];
  if (typeof selector !== 'object' || Array.isArray(selector)) return [`${path}: must be an object`];
  const { matchLabels, matchExpressions } = selector as Record<string, unknown>;
  return [...matchLabelsProblems(matchLabels, path), ...matchExpressionsProblems(matchExpressions, path)];
}

function matchLabelsProblems(matchLabels: unknown, path: string): string[] {
  if (matchLabels === undefined) return [];
  if (typeof matchLabels !== 'object' || matchLabels === null || Array.isArray(matchLabels)) {
    return [`${path}.matchLabels: must be a map of strings`];
  }
  return Object.entries(matchLabels)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k]) => `${path}.matchLabels.${k}: must be a string`);
}

function matchExpressionsProblems(matchExpressions: unknown, path: string): string[] {
  if (matchExpressions === undefined) return [];
  if (!Array.isArray(matchExpressions)) return [`${path}.matchExpressions: must be a list`];
  return matchExpressions.flatMap((req: unknown, i) =>
    requirementProblems(req, `${path}.matchExpressions[${i}]`),
  );
}

function requirementProblems(req: unknown, at: string): string[] {
  if (typeof req !== 'object' || req === null) return [`${at}: must be an object`];
  const problems: string[] = [];
  const { key, operator, values } = req as Record<string, unknown>;
  if (typeof key !== 'string' || key === '') problems.push(`${at}.key: must be a non-empty string`);
  const listed = Array.isArray(values) && values.every((v) => typeof v === 'string');
  if (values !== undefined && !listed) problems.push(`${at}.values: must be a list of strings`);
  const count = listed ? (values as string[]).length : 0;
  if (operator === 'In' || operator === 'NotIn') {
    if (count === 0) problems.push(`${at}.values: operator ${operator} needs at least one value`);
  } else if (operator === 'Exists' || operator === 'DoesNotExist') {
    if (count > 0) problems.push(`${at}.values: operator ${operator} takes no values`);
  } else {
    problems.push(`${at}.operator: must be one of In, NotIn, Exists, DoesNotExist`);
  }
  return problems;
}

/**
 * The selector a {@link LabelSelectorSpec} describes, or `undefined` when it names an operator
 * that does not exist (such a selector matches nothing; {@link selectorProblems} says why).
 */
export function labelSelectorFromSpec(spec: LabelSelectorSpec | undefined): LabelSelector | undefined {
  const requirements: LabelRequirement[] = Object.entries(spec?.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: '=',
    values: [value],
  }));
  for (const req of spec?.matchExpressions ?? []) {
    if (!isSpecOperator(req.operator)) return undefined;
    const operator = OPERATORS[req.operator];
    const values = operator === 'in' || operator === 'notin' ? (req.values ?? []) : [];
    requirements.push({ key: req.key, operator, values });
  }
  return labelSelectorOf(requirements);
}

/**
 * Whether `labels` satisfy `selector` (`matchLabels` and `matchExpressions` ANDed; no selector, or
 * an empty one, matches everything). Assumes a sound selector (see {@link selectorProblems}); one
 * with an unknown operator matches nothing.
 */
export function matchesSelector(
  selector: LabelSelectorSpec | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  return labelSelectorFromSpec(selector)?.matches(labels) ?? false;
}
