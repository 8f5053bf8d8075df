/** fast-check arbitraries for OpenAPI schemas and the CRDs that carry them, and values they accept. */
import fc from 'fast-check';
import type { JSONSchemaProps } from '../src/gen/schema.js';

/** Field names: identifiers, and the ones that need quotes (`x-y`, `a.b`, `9lives`). */
const fieldName = fc.oneof(
  fc.constantFrom('name', 'spec', 'type', 'x-y', 'a.b', '9lives', 'foo_bar', 'fooBar', 'FooBar'),
  fc.stringMatching(/^[a-z][A-Za-z0-9]{0,8}$/),
);

/** Descriptions, with the characters that could break a comment. */
const description = fc.oneof(
  fc.string(),
  fc.constantFrom('ends a comment */ early', 'two\nlines', '@deprecated use other', ' * star\n\n gap'),
);

const enumValues = fc.oneof(
  fc.uniqueArray(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 5 }),
  fc.uniqueArray(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 4 }),
);

const leaf: fc.Arbitrary<JSONSchemaProps> = fc.oneof(
  fc.constantFrom<JSONSchemaProps>(
    { type: 'string' },
    { type: 'string', format: 'date-time' },
    { type: 'integer', format: 'int64' },
    { type: 'number' },
    { type: 'boolean' },
    { 'x-kubernetes-int-or-string': true },
    { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    { 'x-kubernetes-preserve-unknown-fields': true },
  ),
  enumValues.map((values) => ({
    type: typeof values[0] === 'number' ? 'integer' : 'string',
    enum: values.filter((v) => v !== '__not_a_member__'),
  })),
);

/** Adds a description and `nullable` now and then. */
const decorated = (arb: fc.Arbitrary<JSONSchemaProps>) =>
  fc.tuple(arb, fc.option(description, { nil: undefined }), fc.boolean()).map(([schema, text, nullable]) => ({
    ...schema,
    ...(text === undefined ? {} : { description: text }),
    ...(nullable && schema.enum === undefined ? { nullable: true } : {}),
  }));

const tree = fc.letrec<{ schema: JSONSchemaProps; object: JSONSchemaProps }>((tie) => ({
  schema: decorated(
    fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('object'),
      tie('schema').map((items) => ({ type: 'array', items })),
      tie('schema').map((value) => ({ type: 'object', additionalProperties: value })),
    ),
  ),
  object: fc
    .tuple(fc.dictionary(fieldName, tie('schema'), { minKeys: 1, maxKeys: 4 }), fc.boolean())
    .chain(([properties, open]) =>
      fc.subarray(Object.keys(properties)).map((required) => ({
        type: 'object',
        properties,
        required,
        ...(open ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
      })),
    ),
}));

/** An object schema with properties (what a `spec` is). */
export const objectSchema = tree.object;

/** A one-version CRD whose root holds `spec` (required or not) and maybe `status`. */
export const crd = fc
  .record({
    kind: fc.stringMatching(/^[A-Z][a-z]{2,8}$/),
    scope: fc.constantFrom('Namespaced', 'Cluster'),
    spec: objectSchema,
    status: fc.option(objectSchema, { nil: undefined }),
    specRequired: fc.boolean(),
  })
  .map(({ kind, scope, spec, status, specRequired }) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.toLowerCase()}s.example.dev` },
    spec: {
      group: 'example.dev',
      scope,
      names: { kind, plural: `${kind.toLowerCase()}s` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              required: specRequired ? ['spec'] : [],
              properties: { spec, ...(status ? { status } : {}) },
            },
          },
        },
      ],
    },
  }));

/**
 * A value `schema` accepts, as JSON: every field when `full`, else only the required ones; enums
 * take their first value.
 */
export function sampleValue(schema: JSONSchemaProps, full: boolean): unknown {
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema['x-kubernetes-int-or-string']) return 7;
  if (schema.properties && Object.keys(schema.properties).length > 0) {
    const required = new Set(schema.required ?? []);
    return Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([field]) => full || required.has(field))
        .map(([field, sub]) => [field, sampleValue(sub, full)]),
    );
  }
  switch (schema.type) {
    case 'string':
      return 's';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [sampleValue(schema.items ?? {}, full)];
    case 'object':
      return typeof schema.additionalProperties === 'object'
        ? { k: sampleValue(schema.additionalProperties, full) }
        : { any: 1 };
    default:
      return 0;
  }
}
