/**
 * A simulated VM's guest that plays cloud-init (or Ignition) and kubeadm against a workload
 * cluster whose Nodes kwok runs: given the guestinfo a VM booted with, it reads the bootstrap data
 * and leaves in the cluster what that kubeadm step would. `kubeadm init` and
 * `kubeadm join --control-plane` register a control-plane Node (kubeadm's label and taint) and its
 * static pods as mirror pods with kubeadm's labels, Running and Ready through kwok; `init` also
 * uploads the `kubeadm-config`, `kubelet-config` and `cluster-info` ConfigMaps and the bootstrap
 * tokens of its configuration. A worker `join` registers its Node. As cloud-init does, a guest
 * runs its bootstrap once per instance: a reboot leaves what it made alone.
 */
import { randomUUID } from 'node:crypto';
import { parse } from 'yaml';
import { resolveAssets } from './assets.js';
import type { ControlPlane } from './control-plane.js';
import { type GuestBootstrap, type KubeadmStep, readGuestBootstrap } from './guest-bootstrap.js';
import { GuestEtcd } from './guest-etcd.js';
import {
  controlPlanePods,
  initUploads,
  nodeRegistration,
  podPortForward,
  usesExternalEtcd,
} from './kubeadm-objects.js';

/** Options of {@link KubeadmGuest}. */
export interface KubeadmGuestOptions {
  /** The workload cluster (a plane running kwok) the guests join. */
  workload: ControlPlane;
  /** The Node's `spec.providerID` for an instance id (e.g. `vcd://<urn>`). */
  providerID: (instanceId: string) => string;
  /** `status.nodeInfo.osImage` of the Nodes. */
  osImage?: string;
  /** The etcd binary of stacked (managed) etcd members; default envtest's (`resolveAssets`). */
  etcdBinary?: string;
}

/** What one guest did at its first boot. */
export interface GuestNode {
  /** The Node's name (the metadata's `local-hostname`). */
  name: string;
  providerID: string;
  step: KubeadmStep;
  format: GuestBootstrap['format'];
  /** The Kubernetes version it runs (the kubelet's and its static pods'). */
  version: string;
}

/** Plays the guests of simulated VMs; see the file comment. */
export class KubeadmGuest {
  private readonly booted = new Map<string, GuestNode>();
  /** The stacked etcd members of the control-plane nodes (managed etcd). */
  readonly etcd: GuestEtcd;

  constructor(private readonly options: KubeadmGuestOptions) {
    this.etcd = new GuestEtcd(async () => options.etcdBinary ?? (await resolveAssets()).etcd);
  }

  /**
   * The guest of `node` goes down with its VM (powered off): its etcd member stops and its Node
   * stops reporting (Ready Unknown), as when the kubelet is gone.
   */
  async powerOff(node: string): Promise<void> {
    await this.etcd.stopMember(node);
    await this.options.workload.failNode(node);
  }

  /** Stops the etcd members the guests started. */
  stop(): Promise<void> {
    return this.etcd.stop();
  }

  /** The guests that have booted, by instance id. */
  get nodes(): GuestNode[] {
    return [...this.booted.values()];
  }

  /**
   * Boots one guest from its guestinfo; answers what it did, or `undefined` when this instance
   * had booted before (cloud-init and Ignition run once per instance).
   * @throws Error saying what in the bootstrap data is missing or wrong.
   */
  async boot(guestinfo: Record<string, string>): Promise<GuestNode | undefined> {
    const guest = readGuestBootstrap(guestinfo);
    if (this.booted.has(guest.instanceId)) return undefined;
    const controlPlane = guest.step !== 'join';
    const clusterConfiguration =
      guest.step === 'init'
        ? (guest.kubeadmConfig.ClusterConfiguration as Record<string, unknown>)
        : await this.uploadedClusterConfiguration();
    const version = String(clusterConfiguration.kubernetesVersion ?? '');
    if (!/^v\d+\.\d+\.\d+/.test(version))
      throw new Error(`${guest.hostname}: the ClusterConfiguration names no kubernetesVersion (${version})`);
    const providerID = this.options.providerID(guest.instanceId);
    const nodeConfiguration =
      guest.kubeadmConfig[guest.step === 'init' ? 'InitConfiguration' : 'JoinConfiguration'];
    const { labels, taints } = nodeRegistration(guest.step, nodeConfiguration);
    const node: GuestNode = {
      name: guest.hostname,
      providerID,
      step: guest.step,
      format: guest.format,
      version,
    };
    this.booted.set(guest.instanceId, node);
    const workload = this.options.workload;
    await workload.addNodes([
      {
        name: guest.hostname,
        providerID,
        labels,
        taints,
        bootID: randomUUID(),
        kubeletVersion: version,
        ...(this.options.osImage ? { osImage: this.options.osImage } : {}),
      },
    ]);
    if (guest.step === 'init') {
      const caPem = guest.files['/etc/kubernetes/pki/ca.crt'] ?? '';
      await workload.applyObjects(initUploads(guest.kubeadmConfig, version, caPem), {
        fieldManager: 'kubeadm',
      });
    }
    if (controlPlane) {
      const answer = await workload.request('GET', `/api/v1/nodes/${guest.hostname}`);
      const uid = (answer.body as { metadata?: { uid?: string } }).metadata?.uid;
      if (!uid) throw new Error(`${guest.hostname}: its Node is gone (${answer.status})`);
      await workload.createObjects(
        controlPlanePods({ name: guest.hostname, uid }, clusterConfiguration, version),
        { ignoreExisting: true },
      );
      // The node's kube-apiserver answers on 6443 through port-forwarding (KCP reads its serving
      // certificate's expiry there): the workload plane's own apiserver plays it. With stacked etcd,
      // its member answers on 2379 (KCP's etcd client), TLS from the cluster's etcd CA.
      const apiServerPort = Number(new URL(workload.server).port);
      const forwards = [podPortForward(`kube-apiserver-${guest.hostname}`, 6443, apiServerPort)];
      if (!usesExternalEtcd(clusterConfiguration)) {
        const ca = {
          certPem: guest.files['/etc/kubernetes/pki/etcd/ca.crt'] ?? '',
          keyPem: guest.files['/etc/kubernetes/pki/etcd/ca.key'] ?? '',
        };
        if (!ca.certPem || !ca.keyPem)
          throw new Error(`${guest.hostname}: stacked etcd, but the bootstrap data holds no etcd CA`);
        const port = await this.etcd.start(guest.hostname, guest.step === 'init', ca);
        forwards.push(podPortForward(`etcd-${guest.hostname}`, 2379, port));
      }
      await workload.createObjects(forwards, { ignoreExisting: true });
    }
    return node;
  }

  /** The ClusterConfiguration `kubeadm join` downloads from `kube-system/kubeadm-config`. */
  private async uploadedClusterConfiguration(): Promise<Record<string, unknown>> {
    const answer = await this.options.workload.request(
      'GET',
      '/api/v1/namespaces/kube-system/configmaps/kubeadm-config',
    );
    const data = (answer.body as { data?: Record<string, string> }).data?.ClusterConfiguration;
    if (answer.status !== 200 || !data)
      throw new Error(
        `kubeadm join: the cluster has no kube-system/kubeadm-config (${answer.status}): no node ran kubeadm init`,
      );
    return parse(data) as Record<string, unknown>;
  }
}
