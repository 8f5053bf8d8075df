/**
 * Template objects as YAML for clusterctl: every `${VARIABLE}` string double-quoted (a value that
 * looks like a number or `true` must stay a string) except where a number goes, multi-line strings
 * as literal blocks, and no YAML anchors (each object written out in full).
 */
import { Document, isScalar, visit } from 'yaml';

/** Fields whose substituted value must stay a number. */
const NUMERIC = new Set(['replicas', 'port']);
/** An optional variable defaulting to the empty string: `${X:=""}` substitutes a quoted value itself. */
const OPTIONAL = /^\$\{[A-Z0-9_]+:=""\}$/;
const style = (key: string, value: string) =>
  value.includes('\n')
    ? 'BLOCK_LITERAL'
    : !value.includes('${')
      ? undefined
      : NUMERIC.has(key) || OPTIONAL.test(value)
        ? 'PLAIN'
        : 'QUOTE_DOUBLE';

/** One object as YAML. */
export function toYaml(o: unknown): string {
  const doc = new Document(o, { aliasDuplicateObjects: false });
  visit(doc, {
    Pair(_, pair) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!isScalar(pair.value) || typeof pair.value.value !== 'string') return;
      const type = style(key, pair.value.value);
      if (type) pair.value.type = type;
    },
    Seq(_, seq) {
      for (const item of seq.items)
        if (isScalar(item) && typeof item.value === 'string' && item.value.includes('${'))
          item.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString();
}
