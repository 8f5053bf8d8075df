#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { resolveAssets } from './assets.js';
import { ControlPlane } from './control-plane.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const program = new Command('capstan-envtest')
  .description('A real etcd + kube-apiserver on this machine, for tests and local development.')
  .version(version);

program
  .command('setup')
  .description(
    'print the folder holding kube-apiserver, etcd and kube-controller-manager, building them if needed',
  )
  .action(async () => {
    const assets = await resolveAssets();
    process.stdout.write(`${assets.dir}\n`);
  });

program
  .command('start')
  .description('run a control plane until Ctrl-C and print how to reach it')
  .option(
    '--controllers <names>',
    'kube-controller-manager controllers to run, comma-separated',
    'garbagecollector,namespace',
  )
  .option(
    '--watch-cache',
    'run kube-apiserver with its watch cache (production-like; see StartOptions.watchCache)',
  )
  .action(async (opts: { controllers: string; watchCache?: boolean }) => {
    const started = Date.now();
    const plane = await ControlPlane.start({
      controllers: opts.controllers.split(',').filter(Boolean),
      watchCache: opts.watchCache ?? false,
    });
    process.stdout.write(
      [
        `Control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${plane.server}`,
        '',
        'Reach it with:',
        `  export KUBECONFIG=${plane.kubeconfigPath}`,
        '  kubectl get namespaces',
        '',
        'Press Ctrl-C to stop it (its data is removed).',
        '',
      ].join('\n'),
    );
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write('\nstopping...\n');
      await plane.stop();
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Keep the process alive until a signal arrives.
    setInterval(() => {}, 1 << 30);
  });

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`capstan-envtest: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
