/**
 * Builds the decoder's plain objects from parallel lists of keys and values, laid out as
 * `JSON.parse` lays out its objects: all properties inside the object. An object grown from `{}`
 * by assignment keeps only four inside and the rest in a separate array, some 100 bytes more per
 * cached ConfigMap. So each key sequence seen twice is compiled, once, to a function returning an
 * object literal with exactly those keys; V8 gives the literal's objects exact in-object slots.
 */

type Json = Record<string, unknown>;
type Make = (values: unknown[]) => Json;

interface ShapeNode {
  next: Map<string, ShapeNode> | undefined;
  make: Make | undefined;
  seen: number;
}

// Bounded, so that a stream of ever-new key sets (labels that differ per object) costs at most
// this much: past them, objects are built by assignment.
const MAX_NODES = 20_000;
const MAX_SHAPES = 2_000;
const root: ShapeNode = { next: undefined, make: undefined, seen: 0 };
let nodes = 0;
let shapes = 0;

/** A plain object with `keys[i]: values[i]`, in that order. */
export function makeObject(keys: string[], values: unknown[]): Json {
  let node = root;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    let next = node.next?.get(key);
    if (next === undefined) {
      if (nodes >= MAX_NODES) return assign(keys, values);
      next = { next: undefined, make: undefined, seen: 0 };
      node.next ??= new Map();
      node.next.set(key, next);
      nodes++;
    }
    node = next;
  }
  if (node.make !== undefined) return node.make(values);
  // A shape seen once may never come again: compile on the second sighting.
  if (++node.seen >= 2 && claimShape()) {
    node.make = compile(keys);
    return node.make(values);
  }
  return assign(keys, values);
}

/**
 * Takes one compiled shape from the budget, shared with the decoders' makers (decode.ts);
 * false once it is spent.
 */
export function claimShape(): boolean {
  if (shapes >= MAX_SHAPES) return false;
  shapes++;
  return true;
}

function compile(keys: string[]): Make {
  // A literal's `"__proto__": v` would set the prototype, not a property: such objects are assigned.
  if (keys.includes('__proto__')) return (values) => assign(keys, values);
  const body = keys.map((key, i) => `${JSON.stringify(key)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${body} };`) as Make;
}

function assign(keys: string[], values: unknown[]): Json {
  const out: Json = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // An own property named __proto__, as JSON.parse makes it (a ConfigMap key may be one).
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value: values[i],
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else out[key] = values[i];
  }
  return out;
}
