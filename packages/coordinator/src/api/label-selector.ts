/**
 * Kubernetes label selectors (`metav1.LabelSelector`): matching and validation. Kept here, not
 * taken from the runtime, so the planner stays plain data in, plain data out.
 */

/** One requirement of a selector. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** `matchLabels` and `matchExpressions` are ANDed; an empty selector matches everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * Problems with a selector that would make it match wrongly; empty when it is sound. Garbage
 * (wrong types) is reported, never thrown.
 */
export function selectorProblems(selector: unknown, path: string): string[] {
  if (selector === undefined || selector === null) return [];
  if (typeof selector !== 'object' || Array.isArray(selector)) return [`${path}: must be an object`];
  const problems: string[] = [];
  const { matchLabels, matchExpressions } = selector as Record<string, unknown>;
  if (matchLabels !== undefined) {
    if (typeof matchLabels !== 'object' || matchLabels === null || Array.isArray(matchLabels)) {
      problems.push(`${path}.matchLabels: must be a map of strings`);
    } else {
      for (const [k, v] of Object.entries(matchLabels)) {
        if (typeof v !== 'string') problems.push(`${path}.matchLabels.${k}: must be a string`);
      }
    }
  }
  if (matchExpressions !== undefined) {
    if (!Array.isArray(matchExpressions)) {
      problems.push(`${path}.matchExpressions: must be a list`);
    } else {
      matchExpressions.forEach((req: unknown, i) => {
        const at = `${path}.matchExpressions[${i}]`;
        if (typeof req !== 'object' || req === null) {
          problems.push(`${at}: must be an object`);
          return;
        }
        const { key, operator, values } = req as Record<string, unknown>;
        if (typeof key !== 'string' || key === '') problems.push(`${at}.key: must be a non-empty string`);
        const listed = Array.isArray(values) && values.every((v) => typeof v === 'string');
        if (values !== undefined && !listed) problems.push(`${at}.values: must be a list of strings`);
        if (operator === 'In' || operator === 'NotIn') {
          if (!listed || (values as string[]).length === 0) {
            problems.push(`${at}.values: operator ${operator} needs at least one value`);
          }
        } else if (operator === 'Exists' || operator === 'DoesNotExist') {
          if (listed && (values as string[]).length > 0) {
            problems.push(`${at}.values: operator ${operator} takes no values`);
          }
        } else {
          problems.push(`${at}.operator: must be one of In, NotIn, Exists, DoesNotExist`);
        }
      });
    }
  }
  return problems;
}

/** Whether `labels` satisfy `selector`. Assumes a sound selector (see {@link selectorProblems}). */
export function matchesSelector(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, req.key);
    const value = labels[req.key];
    switch (req.operator) {
      case 'In':
        if (!has || !(req.values ?? []).includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && (req.values ?? []).includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
