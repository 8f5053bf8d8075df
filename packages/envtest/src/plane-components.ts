/**
 * The components a control plane starts after its API server is ready: kube-controller-manager,
 * kube-scheduler, kwok and Cluster API's managers, each only when the start options ask for it.
 */
import type { Assets, ExtraComponent } from './assets.js';
import { requireAsset } from './assets.js';
import { type ClusterApiHost, startClusterApi } from './cluster-api.js';
import { defaultControllers, startControllerManager, withRequiredControllers } from './controller-manager.js';
import { type KwokHost, startKwok } from './kwok.js';
import type { ManagedProcess } from './process.js';
import { schedulerUser, startScheduler } from './scheduler.js';
import type { StartOptions } from './start-options.js';

/** Which optional components the options ask for, and the extra assets they need built. */
export function chosenComponents(options: StartOptions): {
  kwok: boolean;
  kcp: boolean;
  extras: ExtraComponent[];
} {
  const kwok = options.kwok || options.nodes !== undefined;
  const kcp = typeof options.clusterApi === 'object' && options.clusterApi.controlPlane === 'kubeadm';
  const extras: ExtraComponent[] = [
    ...(kwok ? ['kwok' as const] : []),
    ...(options.clusterApi ? ['cluster-api' as const] : []),
    ...(kcp ? ['kubeadm-control-plane' as const] : []),
  ];
  return { kwok: Boolean(kwok), kcp, extras };
}

/** What starting the components needs from the plane. */
export interface ComponentSite {
  workDir: string;
  kubeconfigPath: string;
  serviceAccountKeyFile: string;
  host: KwokHost & ClusterApiHost;
  userKubeConfig(name: string): Promise<{ path: string }>;
}

/** The started components, as the plane owns them (the last started is stopped first). */
export interface OwnedComponents {
  /** kube-controller-manager, kube-scheduler, kwok, Cluster API's managers: stopped first. */
  components: ManagedProcess[];
  /** Starts kube-controller-manager again, when it runs the garbage collector (see installCRDs). */
  restartCollector?: () => Promise<void>;
}

/** Starts the chosen components in order, handing each to `started` as soon as it runs. */
export async function startComponents(
  site: ComponentSite,
  options: StartOptions,
  assets: Assets,
  owned: OwnedComponents,
  started: (proc: ManagedProcess) => void,
): Promise<void> {
  const { kwok, kcp } = chosenComponents(options);
  const controllers = withRequiredControllers(
    options.controllerManager === true
      ? defaultControllers
      : options.controllerManager || options.controllers,
    { kwok, clusterApi: Boolean(options.clusterApi) },
  );
  if (controllers.length) {
    const binary = requireAsset(
      assets.kubeControllerManager,
      'kube-controller-manager',
      'CAPSTAN_KUBE_CONTROLLER_MANAGER_BINARY',
    );
    const start = () =>
      startControllerManager(
        binary,
        site.workDir,
        site.kubeconfigPath,
        controllers,
        site.serviceAccountKeyFile,
        options.nodeLeaseSeconds,
      );
    const kcm = { proc: start() };
    started(kcm.proc);
    if (controllers.includes('garbagecollector'))
      owned.restartCollector = async () => {
        await kcm.proc.stop();
        const fresh = start();
        owned.components[owned.components.indexOf(kcm.proc)] = fresh;
        kcm.proc = fresh;
      };
  }
  if (options.scheduler) {
    const binary = requireAsset(assets.kubeScheduler, 'kube-scheduler', 'CAPSTAN_KUBE_SCHEDULER_BINARY');
    const identity = await site.userKubeConfig(schedulerUser);
    started(startScheduler(binary, site.workDir, identity.path));
  }
  if (kwok)
    started(
      await startKwok(
        site.host,
        requireAsset(assets.kwok, 'kwok', 'CAPSTAN_KWOK_BINARY'),
        options.nodeLeaseSeconds,
      ),
    );
  if (options.clusterApi) {
    const capi = requireAsset(assets.clusterApi, 'Cluster API', 'CAPSTAN_CLUSTER_API_MANAGER_BINARY');
    const controlPlane = kcp
      ? requireAsset(
          assets.kubeadmControlPlane,
          'KubeadmControlPlane',
          'CAPSTAN_KUBEADM_CONTROL_PLANE_MANAGER_BINARY',
        )
      : undefined;
    for (const proc of await startClusterApi(site.host, capi, controlPlane)) started(proc);
  }
}
