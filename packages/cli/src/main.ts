#!/usr/bin/env node
/** The `capstan` command. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { genTypesFiles } from './gen/files.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

interface GenTypesFlags {
  output?: string;
  check?: boolean;
  runtimeModule: string;
  regenerate: string;
}

const program = new Command('capstan').description('Capstan development tools').version(version);
const gen = program.command('gen').description('generate code from Kubernetes manifests');

gen
  .command('types')
  .description(
    'TypeScript interfaces (spec, status, nested objects, TSDoc from descriptions) and a typed ' +
      'resource descriptor for every served version of the CRDs in the files; other documents are passed over',
  )
  .argument('<crd.yaml...>', 'files holding CustomResourceDefinitions (multi-document YAML)')
  .option('-o, --output <file>', 'write the module here (default: print it)')
  .option('--check', 'write nothing; exit 1 when the output file is not what would be written')
  .option('--runtime-module <name>', 'where defineResource and KubeObject come from', '@capstan/runtime')
  .option('--regenerate <command>', 'the command the header says rewrites the file', 'npm run gen')
  .action((inputs: string[], flags: GenTypesFlags) => {
    const { source, outcome } = genTypesFiles({
      inputs,
      ...(flags.output === undefined ? {} : { output: flags.output }),
      check: flags.check === true,
      runtimeModule: flags.runtimeModule,
      regenerate: flags.regenerate,
    });
    if (outcome === 'printed') process.stdout.write(source);
    else if (outcome === 'stale') {
      process.stderr.write(`${flags.output} is stale: run \`${flags.regenerate}\`\n`);
      process.exitCode = 1;
    } else process.stderr.write(`${flags.output} ${outcome}\n`);
  });

try {
  await program.parseAsync();
} catch (err) {
  process.stderr.write(`capstan: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
