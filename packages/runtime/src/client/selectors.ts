/**
 * Label and field selectors: parsed once, matched many times. The grammar follows the API
 * server's (`k8s.io/apimachinery/pkg/labels` and `fields`), so a selector that works here works
 * against a real cluster and vice versa. Used by the in-memory cluster and by cache reads.
 */

/** A malformed selector; the message points at the offending term. */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
  /** The whole selector that failed to parse. */
  readonly selector: string;
  constructor(selector: string, message: string) {
    super(`invalid selector "${selector}": ${message}`);
    this.selector = selector;
  }
}

/** The operators of a label requirement. */
export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!';

/** One term of a label selector, e.g. `tier in (web,api)`. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Empty for `exists` and `!`; one value for `=` and `!=`. */
  readonly values: readonly string[];
}

/** A parsed label selector: every requirement must hold (they are ANDed). */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector has no requirement and so matches everything. */
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The canonical text form, e.g. `app=web,!legacy`. */
  toString(): string;
}

// Label names: an optional DNS-subdomain prefix and a slash, then a name of at most 63 characters.
const NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const PREFIX_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function checkKey(selector: string, key: string): void {
  if (key === '') throw new SelectorParseError(selector, 'empty label key');
  const slash = key.indexOf('/');
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    if (prefix.length === 0 || prefix.length > 253 || !PREFIX_RE.test(prefix)) {
      throw new SelectorParseError(selector, `invalid label key prefix "${prefix}"`);
    }
  }
  if (name.length === 0 || name.length > 63 || !NAME_RE.test(name)) {
    throw new SelectorParseError(selector, `invalid label key "${key}"`);
  }
}

function checkValue(selector: string, value: string): void {
  if (value === '') return;
  if (value.length > 63 || !NAME_RE.test(value)) {
    throw new SelectorParseError(selector, `invalid label value "${value}"`);
  }
}

/** Splits on commas that are not inside parentheses (the value lists of `in`/`notin`). */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < 0) throw new SelectorParseError(selector, 'unbalanced ")"');
    } else if (c === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new SelectorParseError(selector, 'unbalanced "("');
  terms.push(selector.slice(start));
  return terms;
}

const SET_RE = /^(\S+)\s+(in|notin)\s*\((.*)\)$/;

function parseLabelTerm(selector: string, raw: string): LabelRequirement {
  const term = raw.trim();
  if (term === '') throw new SelectorParseError(selector, 'empty term');
  const set = SET_RE.exec(term);
  if (set) {
    const key = set[1] as string;
    checkKey(selector, key);
    const values = (set[3] as string).split(',').map((v) => v.trim());
    if (values.length === 1 && values[0] === '') {
      throw new SelectorParseError(selector, `"${key} ${set[2]}" needs at least one value`);
    }
    for (const v of values) checkValue(selector, v);
    return { key, operator: set[2] as 'in' | 'notin', values: [...new Set(values)].sort() };
  }
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    checkKey(selector, key);
    return { key, operator: '!', values: [] };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (eq) {
    const key = eq[1] as string;
    const value = (eq[3] as string).trim();
    checkKey(selector, key);
    checkValue(selector, value);
    return { key, operator: eq[2] === '!=' ? '!=' : '=', values: [value] };
  }
  if (/[\s<>=!()]/.test(term)) throw new SelectorParseError(selector, `cannot parse term "${term}"`);
  checkKey(selector, term);
  return { key: term, operator: 'exists', values: [] };
}

function matchRequirement(
  r: LabelRequirement,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return has && r.values.includes(value as string);
    // As on the server, `!=` and `notin` also match objects that lack the label.
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value as string);
  }
}

function requirementText(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case '=':
    case '!=':
      return `${r.key}${r.operator}${r.values[0]}`;
    default:
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
  }
}

/**
 * Parses a label selector such as `app=web,tier in (a,b),!legacy`.
 * Supports `=`, `==`, `!=`, `in`, `notin`, `key` (exists) and `!key`.
 * @throws {@link SelectorParseError} on malformed input.
 */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  const text = (selector ?? '').trim();
  return labelSelectorOf(text === '' ? [] : splitTerms(text).map((t) => parseLabelTerm(text, t)));
}

/** A selector of requirements already checked (parsed from text, or read from a `LabelSelectorSpec`). */
export function labelSelectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchRequirement(r, labels)),
    toString: () => requirements.map(requirementText).join(','),
  };
}

/** One-shot convenience: does `labels` satisfy `selector`? */
export function matchesLabels(
  selector: string | undefined,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return parseLabelSelector(selector).matches(labels);
}

/** One term of a field selector, e.g. `metadata.name!=foo`. */
export interface FieldRequirement {
  /** Dotted path into the object, e.g. `status.phase`. */
  readonly path: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A parsed field selector (terms ANDed). */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(object: unknown): boolean;
  toString(): string;
}

/** Splits on unescaped commas; `\,`, `\=` and `\\` escape as in the server's field selectors. */
function splitEscaped(selector: string): string[] {
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i] as string;
    if (c === '\\' && i + 1 < selector.length) {
      current += c + selector[i + 1];
      i++;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else current += c;
  }
  terms.push(current);
  return terms;
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function parseFieldTerm(selector: string, raw: string): FieldRequirement {
  const term = raw.trim();
  if (term === '') throw new SelectorParseError(selector, 'empty term');
  // Find the first unescaped operator.
  for (let i = 0; i < term.length; i++) {
    const c = term[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '!' && term[i + 1] === '=')
      return fieldTerm(selector, term.slice(0, i), '!=', term.slice(i + 2));
    if (c === '=') {
      const skip = term[i + 1] === '=' ? 2 : 1;
      return fieldTerm(selector, term.slice(0, i), '=', term.slice(i + skip));
    }
  }
  throw new SelectorParseError(selector, `"${term}" has no operator (=, == or !=)`);
}

function fieldTerm(selector: string, path: string, operator: '=' | '!=', value: string): FieldRequirement {
  const p = path.trim();
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(p)) {
    throw new SelectorParseError(selector, `invalid field path "${p}"`);
  }
  return { path: p, operator, value: unescapeValue(value.trim()) };
}

/** Reads a dotted path as the server compares it: scalars as strings, anything missing as `''`. */
function fieldValue(object: unknown, path: string): string {
  let cur: unknown = object;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

/**
 * Parses a field selector such as `metadata.name=foo,status.phase!=Running`. Any dotted path on the
 * object is accepted (a real server only supports a few fields per kind).
 * @throws {@link SelectorParseError} on malformed input.
 */
export function parseFieldSelector(selector: string | undefined): FieldSelector {
  const text = (selector ?? '').trim();
  const requirements = text === '' ? [] : splitEscaped(text).map((t) => parseFieldTerm(text, t));
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (object) =>
      requirements.every((r) => (fieldValue(object, r.path) === r.value) === (r.operator === '=')),
    toString: () => requirements.map((r) => `${r.path}${r.operator}${r.value}`).join(','),
  };
}
