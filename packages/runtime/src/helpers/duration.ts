/**
 * Durations written as Go writes them (`15s`, `1m30s`, `500ms`, `1.5h`), as every Kubernetes
 * component's flags take them.
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const UNITS = 'ns, us, ms, s, m, h';

/**
 * Parses a Go duration into milliseconds: a sequence of decimal numbers each with a unit
 * (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), optionally signed; `0` needs no unit.
 * @throws Error saying what is wrong, e.g. `invalid duration "15": missing unit (ns, us, ms, s, m, h)`.
 */
export function parseDuration(text: string): number {
  const fail = (why: string): never => {
    throw new Error(`invalid duration "${text}": ${why}`);
  };
  let rest = text.trim();
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '') fail('empty');
  if (rest === '0') return 0;
  let total = 0;
  while (rest !== '') {
    const m = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/.exec(rest);
    if (!m) fail(`expected a number at "${rest}"`);
    const [whole, num, unit] = m as unknown as [string, string, string];
    if (unit === '') fail(`missing unit (${UNITS})`);
    const factor = UNIT_MS[unit];
    if (factor === undefined) fail(`unknown unit "${unit}" (use ${UNITS})`);
    total += Number(num) * (factor as number);
    rest = rest.slice(whole.length);
  }
  if (!Number.isFinite(total)) fail('out of range');
  return sign * total;
}

/** Formats milliseconds the way Go prints durations: `1m30s`, `500ms`, `2h0m0s`, `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${round(abs)}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const s = round((abs % 60_000) / 1000);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

const round = (n: number) => Number(n.toFixed(6));

/**
 * Reads a duration found in a resource (a spec field, an annotation): the milliseconds of a
 * non-negative Go duration with units, or `undefined` for anything else (not a string, a bare
 * number, a sign, garbage). Never throws: bad input in a resource is reported, not fatal.
 * (µ and μ are escaped: one non-ASCII character makes a bundle's whole source two bytes a char.)
 */
export function readDuration(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw.length > 64 || !/^[0-9.][0-9.a-z\u00b5\u03bc]*$/.test(raw))
    return undefined;
  try {
    const ms = parseDuration(raw);
    return raw === '0' ? undefined : Math.round(ms);
  } catch {
    return undefined;
  }
}
