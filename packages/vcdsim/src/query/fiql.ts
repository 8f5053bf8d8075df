/**
 * FIQL filters as VCD's query service and CloudAPI take them (`name==web*;status!=8`,
 * `(a==1,b==2);c=gt=3`): `;` is AND, `,` is OR (AND binds tighter), parentheses group; operators
 * `==` (with `*` wildcards), `!=`, `=lt=`, `=le=`, `=gt=`, `=ge=`. Parsing and evaluation are pure.
 */

export type Op = '==' | '!=' | '=lt=' | '=le=' | '=gt=' | '=ge=';

export type Filter =
  | { kind: 'and'; parts: Filter[] }
  | { kind: 'or'; parts: Filter[] }
  | { kind: 'cmp'; field: string; op: Op; value: string };

/** A filter that does not parse; the message says where. */
export class FiqlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FiqlError';
  }
}

const OPS: Op[] = ['==', '!=', '=lt=', '=le=', '=gt=', '=ge='];

/** Parses a FIQL expression. */
export function parseFiql(text: string): Filter {
  let pos = 0;
  const fail = (what: string): never => {
    throw new FiqlError(`${what} at position ${pos} of filter "${text}"`);
  };
  const orExpr = (): Filter => {
    const parts = [andExpr()];
    while (text[pos] === ',') {
      pos++;
      parts.push(andExpr());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'or', parts };
  };
  const andExpr = (): Filter => {
    const parts = [primary()];
    while (text[pos] === ';') {
      pos++;
      parts.push(primary());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
  };
  const primary = (): Filter => {
    if (text[pos] === '(') {
      pos++;
      const inner = orExpr();
      if (text[pos] !== ')') fail('expected ")"');
      pos++;
      return inner;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(pos));
    if (!m) return fail('expected a field name');
    const field = m[0];
    pos += field.length;
    const op = OPS.find((o) => text.startsWith(o, pos));
    if (!op) return fail('expected an operator');
    pos += op.length;
    let value = '';
    while (pos < text.length && !';,()'.includes(text[pos]!)) value += text[pos++];
    if (value === '') fail('expected a value');
    return { kind: 'cmp', field, op, value };
  };
  if (text.trim() === '') fail('empty filter');
  const f = orExpr();
  if (pos !== text.length) fail('unexpected character');
  return f;
}

/** A field's value in a record (undefined when the record has no such field). */
export type FieldGetter = (field: string) => string | number | boolean | undefined;

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
}

function compare(a: string | number | boolean, b: string): number {
  const na = typeof a === 'number' ? a : Number(a);
  const nb = Number(b);
  if (
    typeof a !== 'boolean' &&
    String(a).trim() !== '' &&
    b.trim() !== '' &&
    Number.isFinite(na) &&
    Number.isFinite(nb)
  )
    return na - nb;
  const sa = String(a);
  return sa < b ? -1 : sa > b ? 1 : 0;
}

/** True when the record satisfies the filter. A missing field satisfies only `!=`. */
export function matches(f: Filter, get: FieldGetter): boolean {
  switch (f.kind) {
    case 'and':
      return f.parts.every((p) => matches(p, get));
    case 'or':
      return f.parts.some((p) => matches(p, get));
    case 'cmp': {
      const v = get(f.field);
      if (v === undefined) return f.op === '!=';
      switch (f.op) {
        case '==':
          return f.value.includes('*') ? wildcard(f.value).test(String(v)) : String(v) === f.value;
        case '!=':
          return f.value.includes('*') ? !wildcard(f.value).test(String(v)) : String(v) !== f.value;
        case '=lt=':
          return compare(v, f.value) < 0;
        case '=le=':
          return compare(v, f.value) <= 0;
        case '=gt=':
          return compare(v, f.value) > 0;
        case '=ge=':
          return compare(v, f.value) >= 0;
      }
    }
  }
}

/** Writes a filter back as text (parsing it again gives the same filter). */
export function formatFiql(f: Filter): string {
  switch (f.kind) {
    case 'cmp':
      return `${f.field}${f.op}${f.value}`;
    case 'and':
      return f.parts.map((p) => (p.kind === 'or' ? `(${formatFiql(p)})` : formatFiql(p))).join(';');
    case 'or':
      return f.parts.map(formatFiql).join(',');
  }
}
