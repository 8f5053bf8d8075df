import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority, writePair, writeServiceAccountKeys } from '@capstan/runtime/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { apiServerDefaults, startApiServer, startEtcd } from './apiserver.js';
import { type Assets, resolveAssets } from './assets.js';
import { withRequiredControllers } from './controller-manager.js';
import { type CrdObject, installCrds } from './crds.js';
import { type ApiAnswer, type ClientTls, etcdPost, httpOk, httpsOk, jsonRequest } from './http.js';
import { kubeConfigFor, kubeConfigYaml, writeKubeConfig } from './kubeconfig.js';
import { KwokNodes, type RebootOptions } from './kwok-nodes.js';
import {
  type ApplyOptions,
  applyManifestObjects,
  createManifestObjects,
  type ManifestObject,
} from './manifests.js';
import { type NodeSpec, nodeSpecs } from './nodes.js';
import { chosenComponents, type OwnedComponents, startComponents } from './plane-components.js';
import { freePorts } from './ports.js';
import type { ManagedProcess } from './process.js';
import type { StartOptions } from './start-options.js';
import { waitFor } from './wait.js';
import { installWebhooks, type WebhookInstallation, type WebhookInstallOptions } from './webhooks.js';

export type { CrdObject, StartOptions };
export { withRequiredControllers };

/** What a test worker needs to reach a control plane started by another process. */
export interface ControlPlaneInfo {
  server: string;
  workDir: string;
  kubeconfigPath: string;
}

const adminUser = 'capstan-admin';

/** The processes a started control plane owns, in start order. */
interface Owned extends OwnedComponents {
  assets: Assets;
  etcd: ManagedProcess;
  etcdUrl: string;
  apiServer: ManagedProcess;
  apiServerArgs: string[];
  readyTimeoutMs: number;
  watchCache: boolean;
}

/**
 * A real etcd and kube-apiserver on loopback, with TLS, RBAC authorization and an admin identity
 * (a client certificate in `system:masters`); optionally kube-controller-manager, kube-scheduler,
 * kwok (simulated Nodes running pods) and Cluster API.
 */
export class ControlPlane {
  /**
   * The admin's KubeConfig: client-node's, so that tests can also make client-node API clients
   * (`makeApiClient`); the runtime's HttpTransport and Manager take it as it is, and operators in
   * production use the runtime's own (`loadKubeConfig`), which loads no client-node.
   */
  readonly kubeConfig: KubeConfig;
  /** A kubeconfig file for the admin, usable with kubectl. */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  private readonly nodes: KwokNodes;

  private constructor(
    private readonly workDir: string,
    private readonly ca: CertificateAuthority,
    server: string,
    private readonly owned?: Owned,
  ) {
    this.server = server;
    this.kubeconfigPath = join(workDir, 'admin.kubeconfig');
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromFile(this.kubeconfigPath);
    this.nodes = new KwokNodes((method, path, body, contentType) =>
      this.request(method, path, body, contentType),
    );
  }

  /** Serializable connection info, for {@link ControlPlane.attach} in another process. */
  get info(): ControlPlaneInfo {
    return { server: this.server, workDir: this.workDir, kubeconfigPath: this.kubeconfigPath };
  }

  /** Starts etcd and kube-apiserver (and the chosen components) and waits until ready. */
  static async start(options: StartOptions = {}): Promise<ControlPlane> {
    const { extras } = chosenComponents(options);
    const assets = options.assets ?? (await resolveAssets({ with: extras }));
    const workDir = mkdtempSync(join(tmpdir(), 'capstan-envtest-'));
    const certDir = join(workDir, 'pki');
    mkdirSync(certDir);
    const processes: ManagedProcess[] = [];
    try {
      const ca = CertificateAuthority.create('capstan-envtest-ca');
      ca.save(certDir);
      writePair(certDir, 'apiserver', ca.issueServing('kube-apiserver'));
      const admin = ca.issueClient(adminUser, ['system:masters']);
      const sa = writeServiceAccountKeys(certDir);

      const [etcdClientPort, etcdPeerPort, apiPort] = (await freePorts(3)) as [number, number, number];
      const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
      const etcd = startEtcd(assets.etcd, workDir, etcdUrl, etcdPeerPort);
      processes.push(etcd);
      await waitFor('etcd', etcd, 30_000, () => httpOk(`${etcdUrl}/health`));

      const server = `https://127.0.0.1:${apiPort}`;
      writeKubeConfig(
        join(workDir, 'admin.kubeconfig'),
        kubeConfigYaml(server, ca.certPem, adminUser, admin),
      );
      const apiServerArgs = [
        ...apiServerDefaults(certDir, etcdUrl, apiPort, sa),
        `--watch-cache=${options.watchCache ?? false}`,
        ...(options.apiServerFlags ?? []),
      ];
      const apiServer = startApiServer(assets.kubeApiServer, workDir, apiServerArgs);
      processes.push(apiServer);
      const owned: Owned = {
        assets,
        etcd,
        etcdUrl,
        apiServer,
        apiServerArgs,
        components: [],
        readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
        watchCache: options.watchCache ?? false,
      };
      const plane = new ControlPlane(workDir, ca, server, owned);
      await plane.waitReady(apiServer, owned.readyTimeoutMs);
      const started = (proc: ManagedProcess) => {
        processes.push(proc);
        owned.components.push(proc);
      };
      // Before kube-controller-manager: its garbage collector maps the kinds it can watch at start
      // and then only every 30 s, so an owner of a kind installed later cascades ~40 s late.
      if (options.crds?.length) await plane.installCRDs(options.crds);
      const site = {
        workDir,
        kubeconfigPath: plane.kubeconfigPath,
        serviceAccountKeyFile: sa.privateKeyFile,
        host: plane.host,
        userKubeConfig: (name: string) => plane.userKubeConfig(name),
      };
      await startComponents(site, options, assets, owned, started);
      if (options.nodes !== undefined) await plane.addNodes(options.nodes);
      return plane;
    } catch (err) {
      await Promise.all(processes.reverse().map((p) => p.stop(2_000)));
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Reaches a control plane started by another process (e.g. vitest's global setup). The handle
   * can install CRDs, mint users and manage kwok nodes, but cannot restart, compact or stop what
   * it does not own.
   */
  static async attach(info: ControlPlaneInfo): Promise<ControlPlane> {
    const ca = CertificateAuthority.load(join(info.workDir, 'pki'));
    return new ControlPlane(info.workDir, ca, info.server);
  }

  /** Process ids of the running components (for tests that check nothing is left behind). */
  get pids(): number[] {
    const o = this.requireOwned('pids');
    return [o.etcd, o.apiServer, ...o.components].map((p) => p.pid);
  }

  /** The `etcd` client URL (plain HTTP on loopback). */
  get etcdUrl(): string {
    return this.requireOwned('etcdUrl').etcdUrl;
  }

  /**
   * Adds kwok-managed Nodes (`count` named `kwok-node-<random>-<i>`, or the given specs) and waits
   * until each is Ready. Needs kwok running on this control plane. Answers the node names.
   */
  addNodes(nodes: number | NodeSpec[], timeoutMs?: number): Promise<string[]> {
    const specs =
      typeof nodes === 'number' ? nodeSpecs(nodes, `kwok-node-${randomBytes(2).toString('hex')}`) : nodes;
    return this.nodes.add(specs, timeoutMs);
  }

  /**
   * Reboots a kwok node: NotReady (its pods not ready) for `downMs`, then Ready with a new
   * `status.nodeInfo.bootID` and its pods Running again. Answers the new boot ID.
   */
  rebootNode(name: string, options?: RebootOptions): Promise<string> {
    return this.nodes.reboot(name, options);
  }

  /** Fails a kwok node: Ready=Unknown, its pods not ready, until {@link healNode}. */
  failNode(name: string): Promise<void> {
    return this.nodes.fail(name);
  }

  /** Heals a failed node: Ready again with the same boot ID, its pods Running again. */
  healNode(name: string, timeoutMs?: number): Promise<void> {
    return this.nodes.heal(name, timeoutMs);
  }

  /**
   * A KubeConfig for a non-admin user (client certificate: CN = name, O = groups), so a test can
   * check what RBAC lets an operator's own identity do. Also writes `<name>.kubeconfig` into the
   * work folder; its path is returned as `path`.
   */
  async userKubeConfig(name: string, groups: string[] = []): Promise<KubeConfig & { path: string }> {
    const pair = this.ca.issueClient(name, groups);
    const path = join(this.workDir, `${name.replace(/[^a-zA-Z0-9.-]/g, '_')}.kubeconfig`);
    writeKubeConfig(path, kubeConfigYaml(this.server, this.ca.certPem, name, pair));
    const kc = kubeConfigFor(this.server, this.ca.certPem, name, pair) as KubeConfig & { path: string };
    kc.path = path;
    return kc;
  }

  /**
   * A KubeConfig that authenticates as service account `namespace/name`: user
   * `system:serviceaccount:<namespace>:<name>` with the groups the API server gives service
   * accounts, so RBAC bound to the service account (as in a Deployment's manifests) applies.
   */
  serviceAccountKubeConfig(namespace: string, name: string): Promise<KubeConfig & { path: string }> {
    return this.userKubeConfig(`system:serviceaccount:${namespace}:${name}`, [
      'system:serviceaccounts',
      `system:serviceaccounts:${namespace}`,
      'system:authenticated',
    ]);
  }

  /**
   * Creates objects as the admin, as `kubectl create -f` does (read them with `readManifests`).
   * With `ignoreExisting`, objects that exist already are left as they are.
   */
  createObjects(objects: ManifestObject[], options: { ignoreExisting?: boolean } = {}): Promise<void> {
    return createManifestObjects((method, path, body) => this.request(method, path, body), objects, options);
  }

  /** Applies objects in order as the admin, server-side with strict field validation (`applyManifestObjects`). */
  applyObjects(objects: ManifestObject[], options: ApplyOptions = {}): Promise<void> {
    return applyManifestObjects((m, p, b, t) => this.request(m, p, b, t), objects, options);
  }

  /**
   * Installs (creates or replaces) CRDs from YAML files or objects and waits until each is
   * Established. The objects are sent as they are: client-node's model serializer would drop keys
   * it does not model, such as `x-kubernetes-int-or-string`.
   *
   * kube-controller-manager's garbage collector looks for new kinds only every 30 s: until then,
   * deleting an owner of a new kind leaves its dependents. On a plane this process started, its
   * kube-controller-manager is restarted once the CRDs are Established, so the collector knows them
   * at once. A plane reached with {@link ControlPlane.attach} cannot do that: pass such CRDs to
   * `ControlPlane.start({ crds })`, which installs them before kube-controller-manager starts.
   */
  async installCRDs(crds: Array<string | CrdObject>, timeoutMs = 30_000): Promise<void> {
    await installCrds((method, path, body) => this.request(method, path, body), crds, timeoutMs);
    await this.owned?.restartCollector?.();
  }

  /** Installs webhook configurations and CRD conversions calling a local server; see {@link installWebhooks}. */
  installWebhooks(options: WebhookInstallOptions): Promise<WebhookInstallation> {
    return installWebhooks(this, options);
  }

  /** Stops kube-apiserver and starts it again on the same port; etcd keeps the data. */
  async restartApiServer(): Promise<void> {
    const o = this.requireOwned('restartApiServer');
    await o.apiServer.stop();
    o.apiServer = startApiServer(o.assets.kubeApiServer, this.workDir, o.apiServerArgs);
    await this.waitReady(o.apiServer, o.readyTimeoutMs);
  }

  /**
   * Compacts etcd at its current revision: afterwards, a watch from any older resourceVersion gets
   * 410 Gone, as in production once history has been compacted away. With the watch cache on,
   * kube-apiserver is also restarted so that its cache drops the history too. Returns the
   * compacted revision.
   */
  async compact(): Promise<number> {
    const o = this.requireOwned('compact');
    // A write outside the apiserver's prefix moves the revision past every resourceVersion a client
    // has seen; compacting there means whoever saw the latest state loses nothing, and anyone older
    // gets 410 (compacting at the latest write itself leaves its predecessor half-gone: a 500).
    const marker = Buffer.from('/capstan-envtest/compaction-marker').toString('base64');
    const put = (await etcdPost(o.etcdUrl, '/v3/kv/put', { key: marker, value: '' })) as {
      header: { revision: string };
    };
    const revision = Number(put.header.revision);
    await etcdPost(o.etcdUrl, '/v3/kv/compaction', { revision, physical: true });
    if (o.watchCache) await this.restartApiServer();
    return revision;
  }

  /** Kills every component (the last started first) and removes the work folder. Idempotent. */
  async stop(): Promise<void> {
    const o = this.requireOwned('stop');
    await Promise.all(o.components.map((p) => p.stop()));
    await o.apiServer.stop();
    await o.etcd.stop();
    rmSync(this.workDir, { recursive: true, force: true });
  }

  /**
   * One JSON request as the admin (`contentType` e.g. `application/merge-patch+json` for a PATCH);
   * answers the status and the parsed body. For what client-node does not model.
   */
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiAnswer> {
    return jsonRequest(this.server, this.adminTls(), method, path, body, contentType);
  }

  /** What the components started with this plane need from it. */
  private get host() {
    return {
      workDir: this.workDir,
      createObjects: this.createObjects.bind(this),
      // Without the collector's restart: components install theirs while the plane starts.
      installCRDs: (crds: Array<string | CrdObject>) =>
        installCrds((method, path, body) => this.request(method, path, body), crds, 30_000),
      serviceAccountKubeConfig: this.serviceAccountKubeConfig.bind(this),
      issueServing: (commonName: string) => this.ca.issueServing(commonName),
      caPem: this.ca.certPem,
    };
  }

  private requireOwned(what: string): Owned {
    if (!this.owned) {
      throw new Error(
        `${what}() needs a control plane this process started: call ControlPlane.start() in the test`,
      );
    }
    return this.owned;
  }

  private async waitReady(apiServer: ManagedProcess, timeoutMs: number): Promise<void> {
    await waitFor('kube-apiserver', apiServer, timeoutMs, () =>
      httpsOk(`${this.server}/readyz`, this.adminTls()),
    );
  }

  /** The admin's TLS material, from its kubeconfig. */
  private adminTls(): ClientTls {
    const admin = this.kubeConfig.getCurrentUser();
    return {
      ca: readFileSync(join(this.workDir, 'pki', 'ca.crt'), 'utf8'),
      cert: Buffer.from(admin?.certData ?? '', 'base64').toString(),
      key: Buffer.from(admin?.keyData ?? '', 'base64').toString(),
    };
  }
}
