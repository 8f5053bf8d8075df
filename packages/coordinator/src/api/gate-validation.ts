/**
 * What the schema cannot refuse in the Prometheus and conditions gates and the silences: a query
 * or alert filter that is missing or does not compile, a CEL expression that does not compile,
 * unparsable durations. Reported as the group's problems (its `Valid` condition), never thrown.
 */
import { isJsonObject, readDuration } from '@capstan/runtime';
import { compileCondition } from '../gates/cel-condition.js';
import type { RebootGroupProblem } from './validation.js';

const isUrl = (v: unknown): boolean => typeof v === 'string' && /^https?:\/\/[^/]/.test(v);

function durationProblem(value: unknown, path: string): RebootGroupProblem[] {
  if (value === undefined) return [];
  const ms = readDuration(value);
  return ms === undefined || ms <= 0 ? [{ path, message: 'must be a positive duration like "10s"' }] : [];
}

/** Problems with `spec.gates.prometheus` and `spec.gates.conditions`. */
export function healthGateProblems(gates: Record<string, unknown>): RebootGroupProblem[] {
  const problems: RebootGroupProblem[] = [];
  const p = gates.prometheus;
  if (p !== undefined) {
    const at = 'spec.gates.prometheus';
    if (!isJsonObject(p)) problems.push({ path: at, message: 'must be an object' });
    else {
      if (!isUrl(p.url)) problems.push({ path: `${at}.url`, message: 'must be an http:// or https:// URL' });
      if (p.query === undefined && p.alerts === undefined)
        problems.push({ path: at, message: 'must name a query, alerts, or both' });
      const re = isJsonObject(p.alerts) ? p.alerts.filterRegexp : undefined;
      if (re !== undefined) {
        try {
          new RegExp(String(re));
        } catch (err) {
          problems.push({ path: `${at}.alerts.filterRegexp`, message: String(err) });
        }
      }
      problems.push(...durationProblem(p.timeout, `${at}.timeout`));
    }
  }
  if (gates.conditions !== undefined) {
    if (!Array.isArray(gates.conditions))
      problems.push({ path: 'spec.gates.conditions', message: 'must be a list' });
    else
      gates.conditions.forEach((c: unknown, i) => {
        const at = `spec.gates.conditions[${i}]`;
        if (!isJsonObject(c)) {
          problems.push({ path: at, message: 'must be an object' });
          return;
        }
        for (const field of ['apiVersion', 'kind', 'expression'] as const)
          if (typeof c[field] !== 'string' || c[field] === '')
            problems.push({ path: `${at}.${field}`, message: 'must be set' });
        if (typeof c.expression === 'string' && c.expression !== '') {
          const program = compileCondition(c.expression);
          if (program instanceof Error) problems.push({ path: `${at}.expression`, message: program.message });
        }
      });
  }
  return problems;
}

/** Problems with `spec.silences`. */
export function silenceProblems(silences: unknown): RebootGroupProblem[] {
  if (silences === undefined) return [];
  const at = 'spec.silences';
  if (!isJsonObject(silences)) return [{ path: at, message: 'must be an object' }];
  const problems: RebootGroupProblem[] = [];
  if (!isUrl(silences.url))
    problems.push({ path: `${at}.url`, message: 'must be an http:// or https:// URL' });
  if (!Array.isArray(silences.matchers) || silences.matchers.length === 0)
    problems.push({ path: `${at}.matchers`, message: 'must list at least one matcher' });
  else
    silences.matchers.forEach((m: unknown, i) => {
      if (!isJsonObject(m) || typeof m.name !== 'string' || m.name === '' || typeof m.value !== 'string')
        problems.push({ path: `${at}.matchers[${i}]`, message: 'must have a name and a value' });
      else if (m.operator !== undefined && !['=', '!=', '=~', '!~'].includes(String(m.operator)))
        problems.push({ path: `${at}.matchers[${i}].operator`, message: 'must be =, !=, =~ or !~' });
    });
  problems.push(...durationProblem(silences.maxDuration, `${at}.maxDuration`));
  return problems;
}
