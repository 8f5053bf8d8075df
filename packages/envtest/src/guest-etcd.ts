/**
 * The stacked etcd kubeadm runs on each control-plane node, as real etcd members on loopback: one
 * member per node, named after it, with serving, client and peer TLS from the cluster's etcd CA
 * (the one Cluster API writes into the node's bootstrap data). `kubeadm init` starts a new
 * cluster; `kubeadm join --control-plane` adds the member through a running one (MemberAdd) and
 * starts it into the existing cluster. A member removed from the cluster (KCP's MemberRemove on
 * scale-down) stops by itself, as etcd does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CertificateAuthority, type CertPair } from '@capstan/runtime/testing';
import { type ClientTls, jsonRequest } from './http.js';
import { freePorts } from './ports.js';
import { ManagedProcess } from './process.js';
import { waitFor } from './wait.js';

/** One member's process and where it listens. */
interface Member {
  name: string;
  proc: ManagedProcess;
  clientUrl: string;
  tls: ClientTls;
}

interface MemberAnswer {
  members?: Array<{ name?: string; peerURLs?: string[] }>;
}

/** The etcd members of one workload cluster's control-plane nodes. */
export class GuestEtcd {
  private readonly members = new Map<string, Member>();
  private readonly dir = mkdtempSync(join(tmpdir(), 'capstan-guest-etcd-'));

  constructor(private readonly binary: () => Promise<string>) {}

  /** Members still running, by node name. */
  get running(): string[] {
    return [...this.members.values()].filter((m) => !m.proc.hasExited).map((m) => m.name);
  }

  /**
   * Starts `node`'s member: a new cluster for `init`, else added through a running member.
   * Answers its client port (what the node's `etcd-<node>` pod forwards 2379 to).
   */
  async start(node: string, init: boolean, ca: { certPem: string; keyPem: string }): Promise<number> {
    const authority = CertificateAuthority.fromPem(ca.certPem, ca.keyPem);
    const pair = authority.issuePeer(node);
    const tls: ClientTls = { ca: ca.certPem, ...pair };
    const [clientPort, peerPort] = (await freePorts(2)) as [number, number];
    const clientUrl = `https://127.0.0.1:${clientPort}`;
    const peerUrl = `https://127.0.0.1:${peerPort}`;
    const initialCluster = init ? [`${node}=${peerUrl}`] : await this.add(node, peerUrl);
    const dir = join(this.dir, node);
    mkdirSync(dir, { recursive: true });
    const files = writeTls(dir, ca.certPem, pair);
    const proc = ManagedProcess.start(
      `etcd ${node}`,
      await this.binary(),
      [
        `--name=${node}`,
        `--data-dir=${join(dir, 'data')}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=${initialCluster.join(',')}`,
        `--initial-cluster-state=${init ? 'new' : 'existing'}`,
        `--cert-file=${files.cert}`,
        `--key-file=${files.key}`,
        `--trusted-ca-file=${files.ca}`,
        '--client-cert-auth=true',
        `--peer-cert-file=${files.cert}`,
        `--peer-key-file=${files.key}`,
        `--peer-trusted-ca-file=${files.ca}`,
        '--peer-client-cert-auth=true',
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    this.members.set(node, { name: node, proc, clientUrl, tls });
    await waitFor(`etcd member ${node}`, proc, 60_000, async () => {
      const answer = await jsonRequest(clientUrl, tls, 'GET', '/health').catch(() => undefined);
      return answer?.status === 200;
    });
    return clientPort;
  }

  /** MemberAdd through a running member, as kubeadm join does; answers the new initial cluster. */
  private async add(node: string, peerUrl: string): Promise<string[]> {
    const via = [...this.members.values()].find((m) => !m.proc.hasExited);
    if (!via) throw new Error(`kubeadm join ${node}: no etcd member is running to add it through`);
    const answer = await jsonRequest(via.clientUrl, via.tls, 'POST', '/v3/cluster/member/add', {
      peerURLs: [peerUrl],
    });
    if (answer.status !== 200)
      throw new Error(`etcd MemberAdd of ${node} through ${via.name}: ${JSON.stringify(answer.body)}`);
    // The new member has no name until it starts: it is the one with our peer URL.
    return ((answer.body as MemberAnswer).members ?? []).map(
      (m) => `${m.peerURLs?.includes(peerUrl) ? node : m.name}=${m.peerURLs?.[0]}`,
    );
  }

  /** Stops `node`'s member, as its machine going down would (it stays in the member list). */
  async stopMember(node: string): Promise<void> {
    await this.members.get(node)?.proc.stop(2_000);
  }

  /** The member names, through the etcd API (MemberList) of a running member. */
  async memberList(): Promise<string[]> {
    const via = [...this.members.values()].find((m) => !m.proc.hasExited);
    if (!via) throw new Error('no etcd member is running');
    const answer = await jsonRequest(via.clientUrl, via.tls, 'POST', '/v3/cluster/member/list', {});
    if (answer.status !== 200)
      throw new Error(`etcd MemberList through ${via.name}: ${JSON.stringify(answer.body)}`);
    return ((answer.body as MemberAnswer).members ?? []).map((m) => m.name ?? '');
  }

  /** Stops every member and removes their data. */
  async stop(): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.proc.stop(2_000)));
    this.members.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function writeTls(dir: string, caPem: string, pair: CertPair) {
  const files = { ca: join(dir, 'ca.crt'), cert: join(dir, 'member.crt'), key: join(dir, 'member.key') };
  writeFileSync(files.ca, caPem);
  writeFileSync(files.cert, pair.cert);
  writeFileSync(files.key, pair.key, { mode: 0o600 });
  return files;
}
