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
  return { source, outcome: writeOrCheck(source, request.output, request.check) };
}

/** Writes `content` to `output` (or, with `check`, compares it): what happened to the file. */
export function writeOrCheck(content: string, output: string | undefined, check?: boolean): GenTypesOutcome {
  if (!output) return 'printed';
  const current = existsSync(output) ? readFileSync(output, 'utf8') : undefined;
  if (current === content) return 'unchanged';
  if (check) return 'stale';
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, content);
  return 'written';
}

/** Prints the output or says what happened to the file; a stale file sets exit code 1. */
export function reportOutcome(
  outcome: GenTypesOutcome,
  text: string,
  output: string | undefined,
  regenerate: string,
) {
  if (outcome === 'printed') process.stdout.write(text);
  else if (outcome === 'stale') {
    process.stderr.write(`${output} is stale: run \`${regenerate}\`\n`);
    process.exitCode = 1;
  } else process.stderr.write(`${output} ${outcome}\n`);
}
