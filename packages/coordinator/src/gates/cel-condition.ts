/**
 * The conditions gate's decision, pure: a CEL expression (Google's Common Expression Language,
 * evaluated by `@bufbuild/cel`) over each named object, bound to `object`, must be `true`. A
 * compile error, an evaluation error (a missing field included: guard with `has()`) or a result
 * that is not a boolean is an `Error` state; `false` is `Closed`. Either blocks.
 */
import { createRequire } from 'node:module';
import type * as Cel from '@bufbuild/cel';
import type { HealthGateState } from '../decide/health-gates.js';

type Program = (bindings: { object: unknown }) => unknown;

const compiled = new Map<string, Program | Error>();

// Loaded on the first expression, not at start: CEL and protobuf cost ~3.7 MB of heap that a
// coordinator without a conditions gate never uses. A `require` keeps the API synchronous (the
// group's validation is), and a bundle turns it into a module initialised on first call.
const require = createRequire(import.meta.url);
let cel: { lib: typeof Cel; env: Cel.CelEnv } | undefined;
const loadCel = (): NonNullable<typeof cel> => {
  if (cel === undefined) {
    const lib = require('@bufbuild/cel') as typeof Cel;
    cel = { lib, env: lib.celEnv({}) };
  }
  return cel;
};

/** The expression compiled (memoised by its text), or why it does not compile. */
export function compileCondition(expression: string): Program | Error {
  let program = compiled.get(expression);
  if (program === undefined) {
    try {
      const { lib, env } = loadCel();
      const run = lib.plan(env, lib.parse(expression));
      program = (bindings) => run(bindings as never);
    } catch (err) {
      program = new Error(`does not compile: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, program);
  }
  return program;
}

/** A condition of the gate, with the objects read for it (or why they could not be read). */
export interface ConditionInput {
  /** `conditions[i]`. */
  gate: string;
  expression: string;
  /** Shown while the expression is false; default the expression. */
  message?: string;
  /** The objects, each with a name for messages; an Error when reading them failed. */
  objects: ReadonlyArray<{ name: string; object: unknown }> | Error;
}

/** The condition's state: Open when the expression is true for every object. */
export function conditionVerdict(input: ConditionInput): HealthGateState {
  const { gate, expression } = input;
  const program = compileCondition(expression);
  if (program instanceof Error) return { gate, state: 'Error', message: program.message };
  if (input.objects instanceof Error) return { gate, state: 'Error', message: input.objects.message };
  for (const { name, object } of input.objects) {
    let result: unknown;
    try {
      result = program({ object });
    } catch (err) {
      result = err instanceof Error ? err : new Error(String(err));
    }
    if (loadCel().lib.isCelError(result) || result instanceof Error)
      return { gate, state: 'Error', message: `${name}: ${(result as Error).message}` };
    if (typeof result !== 'boolean')
      return {
        gate,
        state: 'Error',
        message: `${name}: the expression gives ${typeof result}, not a boolean`,
      };
    if (!result)
      return { gate, state: 'Closed', message: `${name}: ${input.message ?? `not ${expression}`}` };
  }
  return { gate, state: 'Open', message: `${expression} holds for ${input.objects.length} object(s)` };
}
