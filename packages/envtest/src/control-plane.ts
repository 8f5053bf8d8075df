import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';

/**
 * A CustomResourceDefinition as plain JSON (as read from YAML). Not client-node's model type, whose
 * property names differ from the wire format for keys such as `x-kubernetes-int-or-string`.
 */
export interface CrdObject {
  kind?: string;
  metadata?: { name?: string };
}

import { type Assets, resolveAssets } from './assets.js';
import { CertificateAuthority, type CertPair, writeServiceAccountKeys } from './certs.js';
import { kubeConfigFor, kubeConfigYaml, writeKubeConfig } from './kubeconfig.js';
import {
  type ApplyOptions,
  applyManifestObjects,
  createManifestObjects,
  type ManifestObject,
  readManifests,
} from './manifests.js';
import { freePort } from './ports.js';
import { ManagedProcess } from './process.js';
import { installWebhooks, type WebhookInstallation, type WebhookInstallOptions } from './webhooks.js';

/** Controllers of kube-controller-manager a test may switch on. */
export type ControllerName =
  | 'garbagecollector'
  | 'namespace'
  | 'disruption'
  | 'deployment'
  | 'replicaset'
  | string;

/** Options of {@link ControlPlane.start}. */
export interface StartOptions {
  /** CRDs to install (YAML file paths or objects) before `start` resolves. */
  crds?: Array<string | CrdObject>;
  /** Extra kube-apiserver flags, e.g. `['--feature-gates=X=true']`; later flags win. */
  apiServerFlags?: string[];
  /**
   * Also run kube-controller-manager with these controllers, so owner-reference cascades,
   * namespace deletion and PodDisruptionBudget status are the real thing. Off by default; node
   * lifecycle stays off unless named, as there is no kubelet.
   */
  controllers?: ControllerName[];
  /**
   * Run kube-apiserver with its watch cache (default false). Without it every watch is served by
   * etcd, so a watch resumes from any resourceVersion etcd still holds — also across
   * `restartApiServer()` — and history is lost only through `compact()`: deterministic for tests.
   * With it, behaviour is production-like: bookmarks are sent, and after a restart a watch from a
   * resourceVersion older than the new cache gets 410 Gone.
   */
  watchCache?: boolean;
  /** How long to wait for `/readyz`; default 60 s. */
  readyTimeoutMs?: number;
  /** Where binaries come from; default {@link resolveAssets}. */
  assets?: Assets;
}

/** What a test worker needs to reach a control plane started by another process. */
export interface ControlPlaneInfo {
  server: string;
  workDir: string;
  kubeconfigPath: string;
}

const adminUser = 'capstan-admin';

/**
 * A real etcd and kube-apiserver (optionally kube-controller-manager) on loopback, with TLS,
 * RBAC authorization and an admin identity (a client certificate in `system:masters`).
 */
export class ControlPlane {
  /** The admin's KubeConfig. */
  readonly kubeConfig: KubeConfig;
  /** A kubeconfig file for the admin, usable with kubectl. */
  readonly kubeconfigPath: string;
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;

  private constructor(
    private readonly workDir: string,
    private readonly ca: CertificateAuthority,
    server: string,
    private readonly owned?: {
      assets: Assets;
      etcd: ManagedProcess;
      etcdUrl: string;
      apiServer: ManagedProcess;
      apiServerArgs: string[];
      controllerManager?: ManagedProcess;
      readyTimeoutMs: number;
      watchCache: boolean;
    },
  ) {
    this.server = server;
    this.kubeconfigPath = join(workDir, 'admin.kubeconfig');
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromFile(this.kubeconfigPath);
  }

  /** Serializable connection info, for {@link ControlPlane.attach} in another process. */
  get info(): ControlPlaneInfo {
    return { server: this.server, workDir: this.workDir, kubeconfigPath: this.kubeconfigPath };
  }

  /** Starts etcd and kube-apiserver (and the chosen controllers) and waits until ready. */
  static async start(options: StartOptions = {}): Promise<ControlPlane> {
    const assets = options.assets ?? (await resolveAssets());
    const workDir = mkdtempSync(join(tmpdir(), 'capstan-envtest-'));
    const certDir = join(workDir, 'pki');
    mkdirSync(certDir);
    const processes: ManagedProcess[] = [];
    try {
      const ca = await CertificateAuthority.create('capstan-envtest-ca');
      await ca.save(certDir);
      const serving = await ca.issueServing('kube-apiserver');
      writePair(certDir, 'apiserver', serving);
      const admin = await ca.issueClient(adminUser, ['system:masters']);
      const sa = await writeServiceAccountKeys(certDir);

      const [etcdClientPort, etcdPeerPort, apiPort] = (await distinctPorts(3)) as [number, number, number];
      const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
      const etcd = ManagedProcess.start(
        'etcd',
        assets.etcd,
        etcdArgs(workDir, etcdUrl, etcdPeerPort),
        join(workDir, 'etcd.log'),
      );
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
      const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
      const apiServer = startApiServer(assets, workDir, apiServerArgs);
      processes.push(apiServer);
      const plane = new ControlPlane(workDir, ca, server, {
        assets,
        etcd,
        etcdUrl,
        apiServer,
        apiServerArgs,
        readyTimeoutMs,
        watchCache: options.watchCache ?? false,
      });
      await plane.waitReady(apiServer, readyTimeoutMs);
      if (options.controllers?.length) {
        if (!assets.kubeControllerManager) {
          throw new Error(`controllers were asked for, but ${assets.dir} holds no kube-controller-manager`);
        }
        const kcm = ManagedProcess.start(
          'kube-controller-manager',
          assets.kubeControllerManager,
          [
            `--kubeconfig=${plane.kubeconfigPath}`,
            `--controllers=${options.controllers.join(',')}`,
            '--leader-elect=false',
            '--secure-port=0',
            '--use-service-account-credentials=false',
            `--service-account-private-key-file=${sa.privateKeyFile}`,
            `--root-ca-file=${join(certDir, 'ca.crt')}`,
            '--concurrent-gc-syncs=5',
            '--v=1',
          ],
          join(workDir, 'kube-controller-manager.log'),
        );
        processes.push(kcm);
        plane.owned!.controllerManager = kcm;
      }
      if (options.crds?.length) await plane.installCRDs(options.crds);
      return plane;
    } catch (err) {
      await Promise.all(processes.map((p) => p.stop(2_000)));
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * Reaches a control plane started by another process (e.g. vitest's global setup). The handle
   * can install CRDs and mint users, but cannot restart, compact or stop what it does not own.
   */
  static async attach(info: ControlPlaneInfo): Promise<ControlPlane> {
    const ca = await CertificateAuthority.load(join(info.workDir, 'pki'));
    return new ControlPlane(info.workDir, ca, info.server);
  }

  /** Process ids of the running components (for tests that check nothing is left behind). */
  get pids(): number[] {
    const o = this.requireOwned('pids');
    return [o.etcd, o.apiServer, o.controllerManager]
      .filter((p): p is ManagedProcess => !!p)
      .map((p) => p.pid);
  }

  /** The `etcd` client URL (plain HTTP on loopback). */
  get etcdUrl(): string {
    return this.requireOwned('etcdUrl').etcdUrl;
  }

  /**
   * A KubeConfig for a non-admin user (client certificate: CN = name, O = groups), so a test can
   * check what RBAC lets an operator's own identity do. Also writes `<name>.kubeconfig` into the
   * work folder; its path is returned as `path`.
   */
  async userKubeConfig(name: string, groups: string[] = []): Promise<KubeConfig & { path: string }> {
    const pair = await this.ca.issueClient(name, groups);
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
    return createManifestObjects(
      (method, path, body) => this.adminRequest(method, path, body),
      objects,
      options,
    );
  }

  /** Applies objects in order as the admin, server-side with strict field validation (`applyManifestObjects`). */
  applyObjects(objects: ManifestObject[], options: ApplyOptions = {}): Promise<void> {
    return applyManifestObjects((m, p, b, t) => this.adminRequest(m, p, b, t), objects, options);
  }

  /**
   * Installs (creates or replaces) CRDs from YAML files or objects and waits until each is
   * Established. The objects are sent as they are: client-node's model serializer would drop keys
   * it does not model, such as `x-kubernetes-int-or-string`.
   */
  async installCRDs(crds: Array<string | CrdObject>, timeoutMs = 30_000): Promise<void> {
    const base = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const objects = crds.flatMap((c) => (typeof c === 'string' ? readCrdFile(c) : [c]));
    for (const body of objects) {
      const name = body.metadata?.name as string;
      const created = await this.adminRequest('POST', base, body);
      if (created.status === 409) {
        // Replace what is there. Another test file installing the same CRD, or the apiextensions
        // controllers writing its status, may change it between our read and our write: on a
        // conflict, read and replace again.
        for (let attempt = 1; ; attempt++) {
          const current = await this.adminRequest('GET', `${base}/${name}`);
          const resourceVersion = (current.body as V1CustomResourceDefinition).metadata?.resourceVersion;
          const replaced = await this.adminRequest('PUT', `${base}/${name}`, {
            ...body,
            metadata: { ...body.metadata, resourceVersion },
          });
          if (replaced.status === 200) break;
          if (replaced.status !== 409 || attempt >= 10)
            throw new Error(`replacing CRD ${name}: ${JSON.stringify(replaced.body)}`);
          await delay(50 * attempt);
        }
      } else if (created.status !== 201) {
        throw new Error(`creating CRD ${name}: ${JSON.stringify(created.body)}`);
      }
    }
    const deadline = Date.now() + timeoutMs;
    for (const body of objects) {
      const name = body.metadata?.name as string;
      for (;;) {
        const crd = (await this.adminRequest('GET', `${base}/${name}`)).body as V1CustomResourceDefinition;
        if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error(`CRD ${name} not Established within ${timeoutMs} ms`);
        await delay(100);
      }
    }
  }

  /** Installs webhook configurations and CRD conversions calling a local server; see {@link installWebhooks}. */
  installWebhooks(options: WebhookInstallOptions): Promise<WebhookInstallation> {
    return installWebhooks(this, options);
  }

  /** Stops kube-apiserver and starts it again on the same port; etcd keeps the data. */
  async restartApiServer(): Promise<void> {
    const o = this.requireOwned('restartApiServer');
    await o.apiServer.stop();
    o.apiServer = startApiServer(o.assets, this.workDir, o.apiServerArgs);
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

  /** Kills every component and removes the work folder. Idempotent. */
  async stop(): Promise<void> {
    const o = this.requireOwned('stop');
    await Promise.all([o.controllerManager?.stop(), o.apiServer.stop()]);
    await o.etcd.stop();
    rmSync(this.workDir, { recursive: true, force: true });
  }

  private requireOwned(what: string): NonNullable<ControlPlane['owned']> {
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
  private adminTls(): { ca: string; cert: string; key: string } {
    const admin = this.kubeConfig.getCurrentUser();
    return {
      ca: readFileSync(join(this.workDir, 'pki', 'ca.crt'), 'utf8'),
      cert: Buffer.from(admin?.certData ?? '', 'base64').toString(),
      key: Buffer.from(admin?.keyData ?? '', 'base64').toString(),
    };
  }

  /** One JSON request as the admin; answers the status and the parsed body. */
  private adminRequest(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; body: unknown }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.server}${path}`,
        {
          ...this.adminTls(),
          method,
          timeout: 10_000,
          headers: payload ? { 'content-type': contentType, accept: 'application/json' } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            try {
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
            } catch {
              resolve({ status: res.statusCode ?? 0, body: text });
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.end(payload);
    });
  }
}

function writePair(dir: string, name: string, pair: CertPair): void {
  writeFileSync(join(dir, `${name}.crt`), pair.cert);
  writeFileSync(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
}

async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

function etcdArgs(workDir: string, clientUrl: string, peerPort: number): string[] {
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  return [
    '--name=envtest',
    `--data-dir=${join(workDir, 'etcd')}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=envtest=${peerUrl}`,
    // Tests never need durability across a machine crash; fsync dominates write latency.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

function apiServerDefaults(
  certDir: string,
  etcdUrl: string,
  port: number,
  sa: { publicKeyFile: string; privateKeyFile: string },
): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${certDir}`,
    `--tls-cert-file=${join(certDir, 'apiserver.crt')}`,
    `--tls-private-key-file=${join(certDir, 'apiserver.key')}`,
    `--client-ca-file=${join(certDir, 'ca.crt')}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${sa.publicKeyFile}`,
    `--service-account-signing-key-file=${sa.privateKeyFile}`,
    '--disable-admission-plugins=ServiceAccount',
    '--authorization-mode=RBAC',
    '--allow-privileged=true',
    '--v=1',
  ];
}

function startApiServer(assets: Assets, workDir: string, args: string[]): ManagedProcess {
  return ManagedProcess.start(
    'kube-apiserver',
    assets.kubeApiServer,
    args,
    join(workDir, 'kube-apiserver.log'),
  );
}

function readCrdFile(path: string): CrdObject[] {
  return readManifests(path).filter((doc) => doc.kind === 'CustomResourceDefinition') as CrdObject[];
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers true, failing early with the log tail if the process died. */
async function waitFor(name: string, proc: ManagedProcess, timeoutMs: number, probe: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.hasExited) throw new Error(`${name} exited while starting; last log lines:\n${proc.tail()}`);
    if (await probe()) return;
    await delay(100);
  }
  throw new Error(`${name} not ready within ${timeoutMs} ms; last log lines:\n${proc.tail()}`);
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

function httpsOk(url: string, tls: { ca: string; cert: string; key: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function etcdPost(etcdUrl: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
