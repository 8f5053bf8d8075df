#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { resolveAssets } from './assets.js';
import { ControlPlane } from './control-plane.js';
import { defaultControllers } from './controller-manager.js';
import { kwokNodeAnnotation } from './kwok.js';
import { resolveTool, type ToolName, tools } from './tools.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const program = new Command('capstan-envtest')
  .description(
    'A real etcd + kube-apiserver on this machine (optionally a whole simulated cluster), for tests and local development.',
  )
  .version(version);

program
  .command('setup')
  .description(
    'build (once, in parallel) and print every binary envtest runs: kube-apiserver, etcd, ' +
      'kube-controller-manager, kube-scheduler, kwok, Cluster API (core, CABPK, KCP) and clusterctl',
  )
  .action(async () => {
    const started = Date.now();
    const assets = await resolveAssets({
      with: ['kwok', 'cluster-api', 'kubeadm-control-plane', 'clusterctl'],
    });
    const none = '(none in KUBEBUILDER_ASSETS)';
    const lines: Array<[string, string | undefined]> = [
      ['kube-apiserver', assets.kubeApiServer],
      ['etcd', assets.etcd],
      ['kube-controller-manager', assets.kubeControllerManager ?? none],
      ['kube-scheduler', assets.kubeScheduler ?? none],
      ['kwok', assets.kwok?.binary],
      ['cluster-api-manager', assets.clusterApi?.manager],
      ['kubeadm-bootstrap-manager', assets.clusterApi?.kubeadmBootstrapManager],
      ['kubeadm-control-plane-manager', assets.kubeadmControlPlane?.manager],
      ['clusterctl', assets.clusterctl?.binary],
    ];
    process.stdout.write(lines.map(([name, path]) => `${name.padEnd(30)}${path}\n`).join(''));
    process.stderr.write(`[envtest] setup done in ${Math.round((Date.now() - started) / 1000)} s\n`);
  });

program
  .command('tools')
  .description(`build (once) and print the deploy tools manifest tests run: ${Object.keys(tools).join(', ')}`)
  .action(async () => {
    const names = Object.keys(tools) as ToolName[];
    const paths = await Promise.all(names.map((name) => resolveTool(name)));
    process.stdout.write(names.map((name, i) => `${name.padEnd(10)} ${paths[i]}\n`).join(''));
  });

interface StartFlags {
  controllers: string;
  watchCache?: boolean;
  scheduler?: boolean;
  kwok?: boolean;
  nodes?: string;
  clusterApi?: boolean;
  kubeadmControlPlane?: boolean;
}

program
  .command('start')
  .description('run a control plane until Ctrl-C and print how to reach it')
  .option(
    '--controllers <names>',
    'kube-controller-manager controllers to run, comma-separated',
    defaultControllers.join(','),
  )
  .option('--scheduler', 'run kube-scheduler (as system:kube-scheduler), so pods are bound to nodes')
  .option('--kwok', 'run kwok, which plays the kubelet for the simulated nodes')
  .option('--nodes <count>', 'add this many kwok nodes (implies --kwok)')
  .option('--cluster-api', "run Cluster API's core manager and kubeadm bootstrap provider")
  .option('--kubeadm-control-plane', 'with --cluster-api: run the KubeadmControlPlane provider too')
  .option(
    '--watch-cache',
    'run kube-apiserver with its watch cache (production-like; see StartOptions.watchCache)',
  )
  .action(async (opts: StartFlags) => {
    const started = Date.now();
    const nodes = opts.nodes === undefined ? undefined : Number(opts.nodes);
    if (nodes !== undefined && !(Number.isInteger(nodes) && nodes >= 0))
      throw new Error(`--nodes takes a whole number, not ${opts.nodes}`);
    const plane = await ControlPlane.start({
      controllerManager: opts.controllers.split(',').filter(Boolean),
      watchCache: opts.watchCache ?? false,
      scheduler: opts.scheduler ?? false,
      kwok: opts.kwok ?? false,
      clusterApi: opts.clusterApi
        ? { ...(opts.kubeadmControlPlane ? { controlPlane: 'kubeadm' as const } : {}) }
        : false,
      ...(nodes !== undefined ? { nodes } : {}),
    });
    const running = [
      'etcd, kube-apiserver, kube-controller-manager',
      ...(opts.scheduler ? ['kube-scheduler'] : []),
      ...(opts.kwok || nodes !== undefined ? [`kwok (${nodes ?? 0} nodes)`] : []),
      ...(opts.clusterApi
        ? [`Cluster API core + kubeadm bootstrap${opts.kubeadmControlPlane ? ' + control plane' : ''}`]
        : []),
    ];
    process.stdout.write(
      [
        `Control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${plane.server}`,
        `Running: ${running.join('; ')}`,
        '',
        'Reach it with:',
        `  export KUBECONFIG=${plane.kubeconfigPath}`,
        '  kubectl get nodes,namespaces',
        ...(opts.kwok || nodes !== undefined
          ? ['', `More nodes: create a Node annotated ${kwokNodeAnnotation}=fake; kwok makes it Ready.`]
          : []),
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
