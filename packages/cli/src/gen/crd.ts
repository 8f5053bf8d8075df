/**
 * CustomResourceDefinitions → one TypeScript module: for each served version of each CRD, the
 * kind's interface (spec, status and any other top-level field from its `openAPIV3Schema`) and
 * the typed resource descriptor (`defineResource`) the client, the cache and controllers take.
 * Pure: documents in, source text out.
 */
import { parseAllDocuments } from 'yaml';
import { Declarations, type JSONSchemaProps, pascalCase, stringLiteral, tsdoc } from './schema.js';

/** How the generated module is written. */
export interface GenerateOptions {
  /** Where the CRDs came from, named in the header (`deploy/crds.yaml`). */
  source?: string;
  /** The module `defineResource` and `KubeObject` are imported from. Default `@capstan/runtime`. */
  runtimeModule?: string;
  /** The command that writes the file again, named in the header. Default `npm run gen`. */
  regenerate?: string;
}

/** One served version of a CRD, as the generator reads it. */
export interface ServedKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The prefix of every generated name: the kind, plus the version when several are served. */
  typeName: string;
  schema: JSONSchemaProps | undefined;
}

/** A CRD the generator cannot read; the message names the document and the field. */
export class CrdError extends Error {
  override readonly name = 'CrdError';
}

const KUBE_OBJECT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new CrdError(`${where} must be a non-empty string`);
  return value;
}

/**
 * The served versions of the CRDs among `documents`; documents of other kinds are passed over,
 * so a whole `kustomize build` output can be read.
 */
export function servedKinds(documents: readonly unknown[]): ServedKind[] {
  const out: ServedKind[] = [];
  documents.forEach((doc, index) => {
    if (!isRecord(doc) || doc.kind !== 'CustomResourceDefinition') return;
    const where = `document ${index + 1} (${isRecord(doc.metadata) ? String(doc.metadata.name) : 'unnamed'})`;
    if (doc.apiVersion !== 'apiextensions.k8s.io/v1')
      throw new CrdError(
        `${where}: apiVersion ${String(doc.apiVersion)}; only apiextensions.k8s.io/v1 is read`,
      );
    const spec = isRecord(doc.spec) ? doc.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    const group = text(spec.group, `${where}: spec.group`);
    const kind = text(names.kind, `${where}: spec.names.kind`);
    const plural = text(names.plural, `${where}: spec.names.plural`);
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
      throw new CrdError(`${where}: spec.scope must be Namespaced or Cluster, not ${String(spec.scope)}`);
    if (!Array.isArray(spec.versions)) throw new CrdError(`${where}: spec.versions must be a list`);
    const served = spec.versions.filter((v) => isRecord(v) && v.served !== false) as Record<
      string,
      unknown
    >[];
    for (const v of served) {
      const version = text(v.name, `${where}: a version's name`);
      const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
      out.push({
        group,
        version,
        kind,
        plural,
        namespaced: spec.scope === 'Namespaced',
        typeName: served.length > 1 ? `${kind}${pascalCase(version)}` : kind,
        schema: isRecord(schema) ? (schema as JSONSchemaProps) : undefined,
      });
    }
  });
  const seen = new Map<string, ServedKind>();
  for (const k of out) {
    const other = seen.get(k.typeName);
    if (other)
      throw new CrdError(
        `${k.typeName} is served by ${other.group}/${other.version} and ${k.group}/${k.version}: generate them into separate files`,
      );
    seen.set(k.typeName, k);
  }
  return out;
}

/** Writes the interface and the descriptor of one served kind into `decls`. */
function declareKind(decls: Declarations, k: ServedKind): void {
  const root: JSONSchemaProps = k.schema ?? {};
  const properties = Object.fromEntries(
    Object.entries(root.properties ?? {}).filter(([field]) => !KUBE_OBJECT_FIELDS.has(field)),
  );
  const scope = k.namespaced ? 'namespaced' : 'cluster-scoped';
  const description = root.description ?? `\`${k.kind}\` (\`${k.group}/${k.version}\`, ${scope}).`;
  decls.declareInterface(
    k.typeName,
    {
      ...root,
      description,
      properties,
      required: (root.required ?? []).filter((f) => f in properties),
      'x-kubernetes-preserve-unknown-fields': false,
    },
    'KubeObject',
  );
  decls.add(
    `${tsdoc(`The \`${k.kind}\` kind (${scope}) for the client, the cache and controllers.`, '')}` +
      `export const ${k.typeName}Type = defineResource<${k.typeName}>({\n` +
      `  group: ${stringLiteral(k.group)},\n` +
      `  version: ${stringLiteral(k.version)},\n` +
      `  kind: ${stringLiteral(k.kind)},\n` +
      `  plural: ${stringLiteral(k.plural)},\n` +
      `  namespaced: ${k.namespaced},\n` +
      '});',
  );
}

/** The TypeScript module for the CRDs among `documents` (see the file header for what it holds). */
export function generateTypes(documents: readonly unknown[], options: GenerateOptions = {}): string {
  const kinds = servedKinds(documents);
  if (kinds.length === 0) throw new CrdError('no served CustomResourceDefinition version found');
  const decls = new Declarations([
    'defineResource',
    'KubeObject',
    ...kinds.flatMap((k) => [k.typeName, `${k.typeName}Type`]),
  ]);
  for (const k of kinds) declareKind(decls, k);
  const from = options.source ? ` from ${options.source}` : '';
  const again = options.regenerate ?? 'npm run gen';
  const runtime = options.runtimeModule ?? '@capstan/runtime';
  return [
    `// Generated by \`capstan gen types\`${from}. Do not edit: change the CRD and run \`${again}\`.`,
    `import { defineResource, type KubeObject } from ${stringLiteral(runtime)};`,
    ...decls.all,
  ]
    .join('\n\n')
    .concat('\n');
}

/** The documents of a (multi-document) YAML file; a YAML error names its line. */
export function parseDocuments(yamlText: string, source = 'input'): unknown[] {
  return parseAllDocuments(yamlText).map((doc, index) => {
    const [error] = doc.errors;
    if (error) throw new CrdError(`${source}: document ${index + 1}: ${error.message}`);
    return doc.toJS() as unknown;
  });
}
