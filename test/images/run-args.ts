/**
 * What `podman run` needs to start a container as its manifest's pod spec says: the container's
 * args (bind addresses moved to free loopback ports, since the test runs on the host's network),
 * its user, read-only root file system, dropped and added capabilities, no privilege escalation,
 * SELinux and AppArmor options, the host's PID namespace, its environment (downward-API fields
 * filled in) and its hostPath mounts. Pure: the tests run it on the operators' own manifests
 * (rendered by kustomize or Helm), and a property test on generated specs.
 */

/** The parts of a pod spec's container that decide how it runs. */
export interface ContainerSpec {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  securityContext?: SecurityContext;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}

/** A pod's or a container's securityContext, the fields that map onto podman's flags. */
export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seLinuxOptions?: { type?: string; level?: string; user?: string; role?: string };
  appArmorProfile?: { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostProfile?: string };
}

/** The parts of a pod spec used here. */
export interface PodSpec {
  /** The host's PID namespace (`--pid=host`, or the test's stand-in for the host). */
  hostPID?: boolean;
  securityContext?: SecurityContext;
  containers: ContainerSpec[];
  volumes?: Array<{ name: string; hostPath?: { path: string } }>;
}

/** What the test supplies in place of the cluster. */
export interface RunContext {
  /** Downward-API values by field path (`metadata.namespace`, `spec.nodeName`). */
  fields: Record<string, string>;
  /** Loopback ports for the metrics, probe and (where the manifest serves one) webhook servers. */
  ports: { metrics: number; probes: number; webhook?: number };
  /** Host paths to mount instead of a hostPath volume's own, by volume name. */
  hostPaths?: Record<string, string>;
  /** Extra environment (e.g. KUBECONFIG) and mounts (e.g. the kubeconfig file, read-only). */
  env?: Record<string, string>;
  mounts?: Array<{ host: string; container: string }>;
  /**
   * A PID namespace (`/proc/<pid>/ns/pid`) standing in for the host's where the pod asks for
   * `hostPID`; default the machine's own (`--pid=host`).
   */
  hostPidNamespace?: string;
  /** The image's own USER, numeric (`65532:65532`): what runs when the spec names no user. */
  imageUser: string;
}

/** The flags for `podman run` (before the image) and the container's arguments (after it). */
export interface RunArgs {
  flags: string[];
  args: string[];
}

const BIND_FLAGS = { '--metrics-bind-address': 'metrics', '--health-probe-bind-address': 'probes' } as const;

/**
 * The run flags and args for `container` of `pod`.
 * @throws Error when the spec asks for something a kubelet would refuse (runAsNonRoot with uid 0),
 *   names a field or volume the context lacks, or mounts a volume that is not a hostPath.
 */
export function runArgs(pod: PodSpec, container: ContainerSpec, context: RunContext): RunArgs {
  const security = { ...pod.securityContext, ...container.securityContext };
  const [imageUid, imageGid] = context.imageUser.split(':');
  const uid = security.runAsUser ?? Number(imageUid);
  const gid = security.runAsGroup ?? Number(imageGid ?? uid);
  if (security.runAsNonRoot && uid === 0) {
    throw new Error(`${container.name}: runAsNonRoot, but it would run as uid 0`);
  }
  const flags = [`--user=${uid}:${gid}`];
  // A kubelet mounts no tmpfs of its own: a read-only root means nothing writable at all.
  if (security.readOnlyRootFilesystem) flags.push('--read-only', '--read-only-tmpfs=false');
  if (security.allowPrivilegeEscalation === false) flags.push('--security-opt=no-new-privileges');
  for (const cap of security.capabilities?.drop ?? []) flags.push(`--cap-drop=${cap}`);
  for (const cap of security.capabilities?.add ?? []) flags.push(`--cap-add=${cap}`);
  flags.push(...confinement(security));
  if (pod.hostPID)
    flags.push(`--pid=${context.hostPidNamespace ? `ns:${context.hostPidNamespace}` : 'host'}`);

  for (const e of container.env ?? []) flags.push(`--env=${e.name}=${envValue(container.name, e, context)}`);
  for (const [name, value] of Object.entries(context.env ?? {})) flags.push(`--env=${name}=${value}`);

  for (const m of container.volumeMounts ?? []) {
    const volume = pod.volumes?.find((v) => v.name === m.name);
    const host = context.hostPaths?.[m.name] ?? volume?.hostPath?.path;
    if (!host) throw new Error(`${container.name}: volume ${m.name} is not a hostPath and has no stand-in`);
    flags.push(`--volume=${host}:${m.mountPath}${m.readOnly ? ':ro' : ''}`);
  }
  for (const m of context.mounts ?? []) flags.push(`--volume=${m.host}:${m.container}:ro`);

  const args = (container.args ?? []).map((arg) => {
    const [flag] = arg.split('=', 1) as [string];
    const port = BIND_FLAGS[flag as keyof typeof BIND_FLAGS];
    if (port) return `${flag}=127.0.0.1:${context.ports[port]}`;
    // The host's network: a fixed webhook port would collide with other tests' servers.
    if (flag === '--webhook-port' && context.ports.webhook) return `${flag}=${context.ports.webhook}`;
    return arg;
  });
  return { flags, args };
}

function envValue(
  container: string,
  e: NonNullable<ContainerSpec['env']>[number],
  context: RunContext,
): string {
  if (e.value !== undefined) return e.value;
  const path = e.valueFrom?.fieldRef?.fieldPath;
  const value = path === undefined ? undefined : context.fields[path];
  if (value === undefined) throw new Error(`${container}: env ${e.name} needs field ${path ?? '(none)'}`);
  return value;
}

/** podman's `--security-opt` flags for a securityContext's SELinux and AppArmor options. */
function confinement(security: SecurityContext): string[] {
  const flags: string[] = [];
  const selinux = security.seLinuxOptions ?? {};
  for (const key of ['user', 'role', 'type', 'level'] as const) {
    const value = selinux[key];
    if (value !== undefined) flags.push(`--security-opt=label=${key}:${value}`);
  }
  const apparmor = security.appArmorProfile;
  if (apparmor?.type === 'Unconfined') flags.push('--security-opt=apparmor=unconfined');
  if (apparmor?.type === 'Localhost') {
    if (!apparmor.localhostProfile) throw new Error('appArmorProfile Localhost names no localhostProfile');
    flags.push(`--security-opt=apparmor=${apparmor.localhostProfile}`);
  }
  return flags;
}
