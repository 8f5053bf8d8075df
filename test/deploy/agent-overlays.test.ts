/**
 * The agent's kustomize overlays, one per OS (deploy/kustomize/overlays/<os>): each renders the
 * coordinator and the agent with exactly the host access its reboot-needed source needs
 * (read-only where it only reads), and the real API server accepts it (server-side dry-run,
 * strict field validation). docs/os/<os>.md describes each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, type ManifestObject } from '../../packages/envtest/src/index.js';
import { render } from './tools.js';

interface Container {
  args: string[];
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  securityContext?: { capabilities?: { add?: string[] }; privileged?: boolean };
}
interface PodSpec {
  hostPID?: boolean;
  containers: Container[];
  volumes: Array<{ name: string; hostPath?: { path: string; type?: string } }>;
}

let plane: ControlPlane;
beforeAll(async () => {
  plane = await ControlPlane.start();
  // A dry run creates nothing: the namespace the rest lives in is created for real.
  const base = render('kustomize', ['build', 'deploy/kustomize/base']);
  await plane.applyObjects(base.filter((o) => o.kind === 'Namespace'));
}, 600_000);
afterAll(() => plane?.stop());

function agentPod(objects: ManifestObject[]): PodSpec {
  const ds = objects.find((o) => o.kind === 'DaemonSet') as { spec: { template: { spec: PodSpec } } };
  return ds.spec.template.spec;
}

/** The host paths the agent's pod mounts: host path → [mount path, read-only]. */
function hostMounts(pod: PodSpec): Record<string, [string, boolean]> {
  const [agent] = pod.containers;
  const mounts: Record<string, [string, boolean]> = {};
  for (const v of pod.volumes) {
    const m = agent?.volumeMounts.find((vm) => vm.name === v.name);
    if (v.hostPath && m) mounts[v.hostPath.path] = [m.mountPath, m.readOnly === true];
  }
  return mounts;
}

describe('the agent overlays per OS', () => {
  it('flatcar (the default): update_engine and logind on the host bus, nothing more', async () => {
    const objects = render('kustomize', ['build', 'deploy/kustomize/overlays/flatcar']);
    const pod = agentPod(objects);
    expect(pod.containers[0]?.args).toContain('--source=update-engine');
    expect(hostMounts(pod)).toEqual({
      '/var/run/dbus': ['/var/run/dbus', false],
      '/etc/os-release': ['/host/etc/os-release', true],
    });
    expect(pod.hostPID).toBeUndefined();
    await plane.applyObjects(objects, { dryRun: true });
  });

  it("ubuntu-debian: the sentinel file in the host's /run, mounted read-only at /host/run", async () => {
    const objects = render('kustomize', ['build', 'deploy/kustomize/overlays/ubuntu-debian']);
    const pod = agentPod(objects);
    const args = pod.containers[0]?.args ?? [];
    expect(args).toContain('--source=file');
    expect(args).toContain('--reboot-sentinel=/host/run/reboot-required');
    expect(args).not.toContain('--source=update-engine');
    expect(hostMounts(pod)).toEqual({
      '/var/run/dbus': ['/var/run/dbus', false],
      '/etc/os-release': ['/host/etc/os-release', true],
      '/run': ['/host/run', true],
    });
    expect(pod.volumes.find((v) => v.hostPath?.path === '/run')?.hostPath?.type).toBe('Directory');
    expect(pod.hostPID).toBeUndefined();
    expect(pod.containers[0]?.securityContext?.capabilities).toBeUndefined();
    await plane.applyObjects(objects, { dryRun: true });
  });

  it.each([
    ['rhel', 'needs-restarting -r', '1'],
    ['fedora-coreos', 'rpm-ostree status --pending-exit-77', '77'],
  ])('%s: %s on the host through nsenter, with hostPID and its capabilities', async (os, command, needed) => {
    const objects = render('kustomize', ['build', `deploy/kustomize/overlays/${os}`]);
    const pod = agentPod(objects);
    const agent = pod.containers[0];
    expect(agent?.args).toEqual(
      expect.arrayContaining([
        '--source=command',
        `--reboot-sentinel-command=${command}`,
        '--sentinel-host-namespaces',
        `--reboot-sentinel-needed-exit-codes=${needed}`,
        '--reboot-sentinel-not-needed-exit-codes=0',
      ]),
    );
    expect(pod.hostPID).toBe(true);
    expect(agent?.securityContext).toMatchObject({
      capabilities: { add: ['SYS_ADMIN', 'SYS_CHROOT', 'SYS_PTRACE'] },
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
    });
    expect(agent?.securityContext?.privileged).toBeUndefined();
    // No host path beyond the base's: the command sees the host through PID 1's namespaces.
    expect(Object.keys(hostMounts(pod)).sort()).toEqual(['/etc/os-release', '/var/run/dbus']);
    await plane.applyObjects(objects, { dryRun: true });
  });
});
