#!/usr/bin/env node
/** The `capstan` command. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { genTypesFiles, reportOutcome } from './gen/files.js';
import { genRbacFile } from './gen/rbac.js';

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
    reportOutcome(outcome, source, flags.output, flags.regenerate);
  });

interface GenRbacFlags {
  export: string;
  name: string;
  serviceAccount: string;
  output?: string;
  check?: boolean;
  regenerate: string;
  withServiceAccount?: boolean;
}

gen
  .command('rbac')
  .description(
    'the ClusterRole and Roles (and their bindings) an operator needs, from its wiring: what its controllers ' +
      'read, watch, own and write, their status and finalizers, events, leader election, and the rules it declares',
  )
  .argument(
    '<module>',
    "a built module exporting the wiring: (options: { transport }) => the operator's Manager",
  )
  .option('--export <name>', 'the wiring export', 'rbacWiring')
  .requiredOption('--name <name>', 'name of the roles and bindings')
  .requiredOption('--service-account <namespace/name>', 'the ServiceAccount they are bound to')
  .option('-o, --output <file>', 'write the YAML here (default: print it)')
  .option('--with-service-account', 'write the ServiceAccount too')
  .option('--check', 'write nothing; exit 1 when the output file is not what would be written')
  .option('--regenerate <command>', 'the command the header says rewrites the file', 'capstan gen rbac')
  .action(async (module: string, flags: GenRbacFlags) => {
    const [namespace, name, extra] = flags.serviceAccount.split('/');
    if (!namespace || !name || extra !== undefined)
      throw new Error(`--service-account ${flags.serviceAccount}: expected <namespace>/<name>`);
    const { yaml, outcome } = await genRbacFile({
      module,
      exportName: flags.export,
      name: flags.name,
      serviceAccount: { namespace, name },
      withServiceAccount: flags.withServiceAccount === true,
      ...(flags.output === undefined ? {} : { output: flags.output }),
      check: flags.check === true,
      regenerate: flags.regenerate,
    });
    reportOutcome(outcome, yaml, flags.output, flags.regenerate);
  });

try {
  await program.parseAsync();
} catch (err) {
  process.stderr.write(`capstan: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
