/**
 * `@capstan/cli`: the `capstan` command and, for programs, the generator behind
 * `capstan gen types` (CRD → TypeScript types and typed resource descriptors).
 */
export {
  CrdError,
  type GenerateOptions,
  generateTypes,
  parseDocuments,
  type ServedKind,
  servedKinds,
} from './gen/crd.js';
export { type GenTypesOutcome, type GenTypesRequest, genTypesFiles } from './gen/files.js';
export { type GenRbacRequest, genRbacFile, offlineTransport, type RbacWiring } from './gen/rbac.js';
export { Declarations, type JSONSchemaProps, pascalCase } from './gen/schema.js';
