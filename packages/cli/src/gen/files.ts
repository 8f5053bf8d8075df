/** `capstan gen types` on files: read the CRD files, generate, write or compare the output. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { type GenerateOptions, generateTypes, parseDocuments } from './crd.js';

/** What `gen types` is asked to do. */
export interface GenTypesRequest extends Omit<GenerateOptions, 'source'> {
  /** CRD files (multi-document YAML), read in order. */
  inputs: readonly string[];
  /** The file to write; absent: the module is returned only. */
  output?: string;
  /** Compare with `output` instead of writing it. */
  check?: boolean;
  /** The folder the header names the inputs relative to. Default: the working directory. */
  sourceBase?: string;
}

/** What happened to the output file. */
export type GenTypesOutcome = 'written' | 'unchanged' | 'stale' | 'printed';

/** Generates the module for `inputs`; writes it (or checks it) when an output is given. */
export function genTypesFiles(request: GenTypesRequest): { source: string; outcome: GenTypesOutcome } {
  const base = request.sourceBase ?? process.cwd();
  const documents = request.inputs.flatMap((file) => parseDocuments(readFileSync(file, 'utf8'), file));
  const source = generateTypes(documents, {
    ...request,
    source: request.inputs.map((file) => relative(base, file).split('\\').join('/')).join(', '),
  });
  if (!request.output) return { source, outcome: 'printed' };
  const current = existsSync(request.output) ? readFileSync(request.output, 'utf8') : undefined;
  if (current === source) return { source, outcome: 'unchanged' };
  if (request.check) return { source, outcome: 'stale' };
  mkdirSync(dirname(request.output), { recursive: true });
  writeFileSync(request.output, source);
  return { source, outcome: 'written' };
}
