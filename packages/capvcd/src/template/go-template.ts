/**
 * The part of Go's text/template a VM naming template uses: text, `{{ pipeline }}` actions with
 * `{{-`/`-}}` trimming and comments, pipelines (`a | f x` calls `f x a`), field chains on the
 * data (`.machine.Name`, `$.vcdMachine.Spec.Template`), string, number and boolean literals,
 * parenthesized pipelines, and the functions of `functions.ts`. Control actions (if, range, with,
 * define, ...) and variables are refused, as is any unknown function: each with an error saying
 * what, never a crash. No npm package implements Go templates with sprig faithfully enough to
 * trust with a name that must never change, hence this small one.
 *
 * Fields are read from Kubernetes objects as JSON, by their Go names (CAPVCD hands its templates
 * Go structs: `.machine.Name` is `metadata.name`, `.machine.Spec.ClusterName` `spec.clusterName`)
 * or their JSON names (`.machine.name`, which this provider took before).
 */
import { FUNCTIONS, TemplateError, UNSTABLE, type Value } from './functions.js';

export { TemplateError } from './functions.js';

type Node =
  | { kind: 'field'; path: string[]; root: boolean }
  | { kind: 'literal'; value: Value }
  | { kind: 'function'; name: string }
  | { kind: 'pipeline'; commands: Node[][] };

type Part = string | { kind: 'pipeline'; commands: Node[][] };

const KEYWORDS = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'define',
  'template',
  'block',
  'break',
  'continue',
]);

/** Splits an action's text into tokens. @throws TemplateError on an unterminated string or a stray character. */
function tokenize(src: string, at: number): string[] {
  const tokens: string[] = [];
  const re =
    /\s+|"(?:[^"\\]|\\.)*"|`[^`]*`|-?\d+(?:\.\d+)?|[|()]|\$?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*|\$?(?:\.[A-Za-z_]\w*)+|\.|\$|:=|=|\S/gy;
  for (let m = re.exec(src); m && m[0] !== ''; m = re.exec(src)) {
    const t = m[0];
    if (/^\s+$/.test(t)) continue;
    if (t === ':=' || t === '=') throw new TemplateError(`at ${at}: variables are not supported`);
    if (/^["`]/.test(t) || /^[\w$.|()-]/.test(t)) tokens.push(t);
    else throw new TemplateError(`at ${at}: unexpected "${t}" in {{ ${src.trim()} }}`);
  }
  return tokens;
}

/** The node of one operand token. */
function operand(t: string, at: number): Node {
  if (t.startsWith('"')) {
    try {
      return { kind: 'literal', value: JSON.parse(t) as string };
    } catch {
      throw new TemplateError(`at ${at}: bad string ${t}`);
    }
  }
  if (t.startsWith('`')) return { kind: 'literal', value: t.slice(1, -1) };
  if (/^-?\d/.test(t)) return { kind: 'literal', value: Number(t) };
  if (t === 'true' || t === 'false') return { kind: 'literal', value: t === 'true' };
  if (t === 'nil') return { kind: 'literal', value: null };
  if (t === '.' || t === '$') return { kind: 'field', path: [], root: t === '$' };
  if (t.startsWith('.') || t.startsWith('$.'))
    return { kind: 'field', path: t.replace(/^\$?\./, '').split('.'), root: t.startsWith('$') };
  if (t.startsWith('$')) throw new TemplateError(`at ${at}: variables are not supported ("${t}")`);
  if (KEYWORDS.has(t)) throw new TemplateError(`at ${at}: {{ ${t} }} is not supported (only pipelines are)`);
  if (t.includes('.')) throw new TemplateError(`at ${at}: "${t}" is not a field (fields start with a dot)`);
  if (UNSTABLE.has(t))
    throw new TemplateError(`at ${at}: ${t} is refused: a VM's name must be the same on every reconcile`);
  if (!Object.hasOwn(FUNCTIONS, t))
    throw new TemplateError(
      `at ${at}: function "${t}" is not supported (supported: ${Object.keys(FUNCTIONS).join(', ')})`,
    );
  return { kind: 'function', name: t };
}

/** Parses tokens from `i` into a pipeline; answers it and the index after it. */
function pipeline(
  tokens: string[],
  i: number,
  at: number,
  nested: boolean,
): [Node & { kind: 'pipeline' }, number] {
  const commands: Node[][] = [[]];
  for (; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === ')') {
      if (!nested) throw new TemplateError(`at ${at}: unexpected ")"`);
      break;
    }
    if (t === '|') {
      if ((commands.at(-1) as Node[]).length === 0)
        throw new TemplateError(`at ${at}: missing command before "|"`);
      commands.push([]);
    } else if (t === '(') {
      const [inner, end] = pipeline(tokens, i + 1, at, true);
      if (tokens[end] !== ')') throw new TemplateError(`at ${at}: unclosed "("`);
      (commands.at(-1) as Node[]).push(inner);
      i = end;
    } else (commands.at(-1) as Node[]).push(operand(t, at));
  }
  if (nested && tokens[i] !== ')') throw new TemplateError(`at ${at}: unclosed "("`);
  if (commands.some((c) => c.length === 0)) throw new TemplateError(`at ${at}: empty command`);
  return [{ kind: 'pipeline', commands }, i];
}

/** Parses a template. @throws TemplateError saying where and what. */
export function parse(src: string): Part[] {
  const parts: Part[] = [];
  let pos = 0;
  let trimNext = false;
  while (pos < src.length) {
    const open = src.indexOf('{{', pos);
    let text = src.slice(pos, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      if (text.includes('}}')) throw new TemplateError(`at ${pos + text.indexOf('}}')}: unexpected "}}"`);
      parts.push(text);
      break;
    }
    const close = src.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateError(`at ${open}: unclosed action`);
    let body = src.slice(open + 2, close);
    if (/^-\s/.test(body)) {
      text = text.replace(/\s+$/, '');
      body = body.slice(1);
    }
    trimNext = /\s-$/.test(body);
    if (trimNext) body = body.slice(0, -1);
    parts.push(text);
    if (!/^\s*\/\*[\s\S]*\*\/\s*$/.test(body)) {
      const tokens = tokenize(body, open);
      if (tokens.length === 0) throw new TemplateError(`at ${open}: missing value for command`);
      const [p] = pipeline(tokens, 0, open, false);
      parts.push(p);
    }
    pos = close + 2;
  }
  return parts;
}

/** Go field names that Kubernetes objects hold in `metadata` (promoted from ObjectMeta). */
const META: Record<string, string> = {
  Name: 'name',
  Namespace: 'namespace',
  Labels: 'labels',
  Annotations: 'annotations',
  UID: 'uid',
  GenerateName: 'generateName',
  Generation: 'generation',
  name: 'name',
  namespace: 'namespace',
  labels: 'labels',
  annotations: 'annotations',
  uid: 'uid',
};
const GO_TO_JSON: Record<string, string> = {
  ProviderID: 'providerID',
  APIVersion: 'apiVersion',
  ObjectMeta: 'metadata',
};

/** One field of `v`, by Go or JSON name; undefined when it has none. */
function field(v: Value, name: string): Value {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, Value>;
  if (typeof o.metadata === 'object' && Object.hasOwn(META, name))
    return (o.metadata as Record<string, Value>)[META[name] as string];
  if (Object.hasOwn(o, name)) return o[name];
  const json = GO_TO_JSON[name] ?? name.charAt(0).toLowerCase() + name.slice(1);
  return o[json];
}

/** Evaluation: the data, and the fields that had no value (named when the result is refused). */
interface Scope {
  data: Value;
  missing: string[];
}

function evaluate(node: Node, scope: Scope, piped: Value[]): Value {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'field': {
      const value = node.path.reduce<Value>((at, name) => field(at, name), scope.data);
      if (value === undefined) scope.missing.push(`.${node.path.join('.')}`);
      return value;
    }
    case 'function':
      return (FUNCTIONS[node.name] as (args: Value[]) => Value)(piped);
    case 'pipeline': {
      let value: Value;
      for (const [i, [head, ...args]] of node.commands.entries()) {
        const passed = i === 0 ? [] : [value];
        if (head?.kind === 'function') {
          value = evaluate(head, scope, [...args.map((a) => evaluate(a, scope, [])), ...passed]);
        } else {
          if (args.length > 0 || passed.length > 0)
            throw new TemplateError('only a function takes arguments (or a piped value)');
          value = evaluate(head as Node, scope, []);
        }
      }
      return value;
    }
  }
}

/** A value as Go's template prints it. */
function print(v: Value): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'object')
    return Array.isArray(v)
      ? `[${v.map((x) => print(x as Value)).join(' ')}]`
      : `map[${Object.keys(v).join(' ')}]`;
  return String(v);
}

/**
 * Executes `src` over `data`.
 * @returns the text, and the fields read that had no value.
 * @throws TemplateError when the template cannot be parsed or a function refuses its arguments.
 */
export function execute(src: string, data: Value): { text: string; missing: string[] } {
  const scope: Scope = { data, missing: [] };
  const text = parse(src)
    .map((p) => (typeof p === 'string' ? p : print(evaluate(p, scope, []))))
    .join('');
  return { text, missing: scope.missing };
}
