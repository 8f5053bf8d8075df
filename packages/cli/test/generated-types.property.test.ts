/**
 * Properties of `capstan gen types` over arbitrary schemas: the module compiles under tsc strict
 * with exactOptionalPropertyTypes; values with every field, or only the required ones, are
 * accepted; a value missing a required field, or holding a non-member of an enum, is refused;
 * enum values come back from the generated union unchanged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../src/gen/crd.js';
import { Declarations, type JSONSchemaProps } from '../src/gen/schema.js';
import { crd, sampleValue } from './arbitraries.js';
import { typeErrors, unionValues } from './compile.js';

type Crd = typeof crd extends fc.Arbitrary<infer T> ? T : never;

/** The statements that must compile, and those (under `@ts-expect-error`) that must not. */
function witnesses(doc: Crd): string {
  const kind = doc.spec.names.kind;
  const root = doc.spec.versions[0]?.schema.openAPIV3Schema;
  if (!root) throw new Error('the arbitrary CRD has one version');
  const spec: JSONSchemaProps = root.properties.spec;
  const status = (root.properties as { status?: JSONSchemaProps }).status;
  const object = (specValue: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ metadata: { name: 'x' }, spec: specValue, ...extra });
  const minimal = sampleValue(spec, false) as Record<string, unknown>;
  const lines = [
    `import type { ${kind} } from './gen.js';`,
    `export const full: ${kind} = ${object(sampleValue(spec, true), status ? { status: sampleValue(status, true) } : {})};`,
    `export const minimal: ${kind} = ${object(minimal)};`,
  ];
  if (root.required.includes('spec'))
    lines.push('// @ts-expect-error spec is required', `export const noSpec: ${kind} = {"metadata":{}};`);
  for (const [i, field] of (spec.required ?? []).entries()) {
    const { [field]: _, ...rest } = minimal;
    lines.push(`// @ts-expect-error ${JSON.stringify(field)} is required`);
    lines.push(`export const without${i}: ${kind} = ${object(rest)};`);
  }
  for (const [i, [field, sub]] of Object.entries(spec.properties ?? {}).entries()) {
    if (!sub.enum) continue;
    lines.push(`// @ts-expect-error not a member of ${JSON.stringify(field)}'s enum`);
    lines.push(`export const outside${i}: ${kind} = ${object({ ...minimal, [field]: '__not_a_member__' })};`);
  }
  return `${lines.join('\n')}\n`;
}

describe('capstan gen types, for arbitrary schemas', () => {
  it('compiles strict, takes required-only and full values, refuses missing required fields and non-members', () => {
    fc.assert(
      fc.property(fc.array(crd, { minLength: 12, maxLength: 12 }), (docs) => {
        const files: Record<string, string> = {};
        docs.forEach((doc, i) => {
          files[`m${i}/gen.ts`] = generateTypes([doc]);
          files[`m${i}/witness.ts`] = witnesses(doc);
        });
        expect(typeErrors(files)).toEqual([]);
      }),
      { numRuns: 3 },
    );
  }, 120_000);

  it('writes every enum value into the union, and reads back the same values', () => {
    const values = fc.oneof(
      fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 6 }),
      fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 6 }),
    );
    fc.assert(
      fc.property(values, (enumValues) => {
        const type = new Declarations().typeOf({ type: 'string', enum: enumValues }, 'X');
        expect(unionValues(type)).toEqual(enumValues);
      }),
    );
  });

  it('is a function of the CRD: the same input gives the same text', () => {
    fc.assert(
      fc.property(crd, (doc) => {
        expect(generateTypes([doc])).toBe(generateTypes([structuredClone(doc)]));
      }),
    );
  });
});
