/** etcd and kube-apiserver: their flags, in the spirit of controller-runtime's envtest. */
import { join } from 'node:path';
import { ManagedProcess } from './process.js';

/** etcd on loopback with its data under `workDir`. */
export function startEtcd(
  binary: string,
  workDir: string,
  clientUrl: string,
  peerPort: number,
): ManagedProcess {
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  return ManagedProcess.start(
    'etcd',
    binary,
    [
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
    ],
    join(workDir, 'etcd.log'),
  );
}

/** kube-apiserver's flags: TLS, RBAC, client-certificate authentication, service account keys. */
export function apiServerDefaults(
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

export function startApiServer(binary: string, workDir: string, args: string[]): ManagedProcess {
  return ManagedProcess.start('kube-apiserver', binary, args, join(workDir, 'kube-apiserver.log'));
}
