/**
 * The agent's image run with exactly the DaemonSet the per-OS kustomize overlays render (the
 * same DaemonSet as the Helm chart's examples: test/deploy/install.test.ts), its volume mounts,
 * securityContext and hostPID turned into podman's flags (run-args.ts), against an envtest
 * apiserver, with a token bound to its pod on its Node:
 * - Debian/Ubuntu (sentinel file): a temporary folder stands in for the host's /run; touching
 *   reboot-required in it makes the Node ask. With the overlay's host-run mount taken away, the
 *   agent reports that it cannot look (annotation, condition, metric, log) and the Node's last
 *   answer stands: never silence. Pointed at the container's own /var/run (no volume there), it
 *   says so at start (mountinfo), not "no reboot needed".
 * - RHEL (sentinel command in the host's namespaces): a stand-in host (stand-in-host.ts) whose
 *   /usr/local/bin alone holds `needs-restarting`; the agent runs it through nsenter in PID 1's
 *   namespaces with the overlay's hostPID and capabilities, and the Node asks when it exits 1.
 * One image build serves every case.
 */
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ManifestObject, podBoundKubeConfig } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import {
  AGENT_SOURCE_ERROR_ANNOTATION,
  AGENT_SOURCE_ERROR_CONDITION,
  capstanProtocol,
} from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, createPodOn } from '../../packages/agent/test/helpers.js';
import { buildTools, render, TOOLS_BUILD_MS } from '../deploy/tools.js';
import {
  build,
  buildSeconds,
  type ImageUnderTest,
  type Started,
  type StartOptions,
  start,
} from './fixture.js';
import { imageName, type Workload, workloadIn } from './podman.js';
import { type StandInHost, startStandInHost } from './stand-in-host.js';

const NS = 'capstan-system';
const TAG = imageName('agent');
const DOCKERFILE = 'packages/agent/Dockerfile';
const { rebootNeeded } = capstanProtocol.annotations;

/** The agent's DaemonSet as an overlay renders it, and every object of the overlay. */
async function overlay(name: string): Promise<{ objects: ManifestObject[]; workload: Workload }> {
  const objects = await render('kustomize', ['build', `deploy/kustomize/overlays/${name}`]);
  const daemonSets = objects.filter((o) => o.kind === 'DaemonSet');
  return { objects, workload: workloadIn(daemonSets, `overlays/${name}`) };
}

/** The workload with a volume's mount (and the volume) taken away. */
function withoutVolume({ pod, container }: Workload, volume: string): Workload {
  const mounts = container.volumeMounts ?? [];
  expect(mounts.map((m) => m.name)).toContain(volume);
  const trimmed = { ...container, volumeMounts: mounts.filter((m) => m.name !== volume) };
  const volumes = (pod.volumes ?? []).filter((v) => v.name !== volume);
  return { pod: { ...pod, containers: [trimmed], volumes }, container: trimmed };
}

const env = useOwnControlPlane({}, 'agent-source-images');
let admin: Client;
let debian: Workload;
let rhel: Workload;
let scratch: string;
const bootID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const started: Started[] = [];
const seconds: Record<string, number> = {};

beforeAll(buildTools, TOOLS_BUILD_MS);
beforeAll(
  () => build({ tag: TAG, dockerfile: DOCKERFILE, manifest: 'packages/agent/deploy/daemonset.yaml' }),
  900_000,
);
beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  const ubuntu = await overlay('debian-ubuntu');
  debian = ubuntu.workload;
  rhel = (await overlay('rhel')).workload;
  // Namespace, RBAC, admission policies and the DaemonSet as the overlay installs them.
  await env.plane.createObjects(ubuntu.objects.filter((o) => o.kind !== 'Deployment'));
  scratch = mkdtempSync(join(tmpdir(), 'capstan-agent-sources-'));
  chmodSync(scratch, 0o755);
}, 120_000);

afterAll(async () => {
  for (const s of started.splice(0).reverse()) await s.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  console.info(`agent image built in ${buildSeconds.get(TAG)} s; cases (s): ${JSON.stringify(seconds)}`);
});

/** A folder any uid may read, under the test's scratch folder. */
function folder(name: string): string {
  const path = mkdtempSync(join(scratch, `${name}-`));
  chmodSync(path, 0o755);
  return path;
}

/** A Node on this machine (its boot ID) and the agent's pod on it; a token bound to that pod. */
async function nodeWithPod(name: string): Promise<string> {
  await createNode(admin, name, { bootID });
  const daemonSet = await admin.get(DaemonSet, { namespace: NS, name: 'capstan-agent' });
  await createPodOn(admin, NS, `capstan-agent-${name}`, name, daemonSet);
  return (
    await podBoundKubeConfig(env.kubeConfig, NS, 'capstan-agent', `capstan-agent-${name}`)
  ).exportConfig();
}

/** Starts the agent's image as `workload` says, for `node`. */
async function runAgent(
  workload: Workload,
  node: string,
  kubeconfig: string,
  more: Pick<StartOptions, 'hostPaths' | 'hostPidNamespace'>,
): Promise<Started> {
  const image: ImageUnderTest = { tag: TAG, dockerfile: DOCKERFILE, manifest: workload };
  const run = await start(image, {
    kubeconfig,
    fields: { 'metadata.namespace': NS, 'spec.nodeName': node },
    ...more,
  });
  started.push(run);
  return run;
}

async function stop(run: Started): Promise<void> {
  started.splice(started.indexOf(run), 1);
  await run.stop();
}

const annotations = async (node: string) =>
  (await admin.get(Node, { name: node })).metadata.annotations ?? {};

/** Waits for the Node's reboot-needed annotation to read `value`. */
function asks(node: string, value: 'true' | 'false', run: Started, timeoutMs = 45_000) {
  return eventually(async () => (await annotations(node))[rebootNeeded] === value, {
    what: `${rebootNeeded}=${value} on ${node}`,
    timeoutMs,
    intervalMs: 250,
    details: () => run.container.logs(),
  });
}

describe('the agent image as the debian-ubuntu overlay runs it (sentinel file)', () => {
  const node = 'image-debian';
  let kubeconfig: string;
  let hostRun: string;

  beforeAll(async () => {
    kubeconfig = await nodeWithPod(node);
    hostRun = folder('host-run');
  });

  it('asks for a reboot once the host-side sentinel file appears', async () => {
    const t0 = Date.now();
    // Only the volumes' host sides are the test's: the host's /run and /var/run/dbus.
    const run = await runAgent(debian, node, kubeconfig, {
      hostPaths: { 'host-run': hostRun, dbus: folder('dbus') },
    });
    await asks(node, 'false', run);
    writeFileSync(join(hostRun, 'reboot-required'), '*** System restart required ***\n');
    await asks(node, 'true', run);
    expect((await run.container.get('metrics', '/metrics')).body).toMatch(/^capstan_agent_source_error 0$/m);
    expect((await annotations(node))[AGENT_SOURCE_ERROR_ANNOTATION]).toBeUndefined();
    await stop(run);
    seconds.sentinelFile = (Date.now() - t0) / 1000;
  }, 120_000);

  it('without the host-run mount, reports that it cannot look; the last answer stands', async () => {
    const t0 = Date.now();
    const run = await runAgent(withoutVolume(debian, 'host-run'), node, kubeconfig, {
      hostPaths: { dbus: folder('dbus') },
    });
    const error = await eventually(async () => (await annotations(node))[AGENT_SOURCE_ERROR_ANNOTATION], {
      what: `${AGENT_SOURCE_ERROR_ANNOTATION} on ${node}`,
      timeoutMs: 45_000,
      intervalMs: 250,
      details: () => run.container.logs(),
    });
    expect(error).toContain('cannot look for sentinel file /host/run/reboot-required');
    expect(error).toContain('directory /host/run does not exist');
    const condition = await eventually(
      async () =>
        (await admin.get(Node, { name: node })).status?.conditions?.find(
          (c) => c.type === AGENT_SOURCE_ERROR_CONDITION && c.status === 'True',
        ),
      { what: `the ${AGENT_SOURCE_ERROR_CONDITION} condition`, timeoutMs: 20_000 },
    );
    expect(condition.message).toBe(error);
    expect((await run.container.get('metrics', '/metrics')).body).toMatch(/^capstan_agent_source_error 1$/m);
    expect(run.container.logs()).toContain('reboot-needed source cannot tell');
    // Not silence: the previous answer is not turned into "no reboot needed".
    expect((await annotations(node))[rebootNeeded]).toBe('true');
    await stop(run);
    seconds.mountRemoved = (Date.now() - t0) / 1000;
  }, 120_000);

  it("pointed at the container's own /var/run (the old DaemonSet's mistake), says no volume is there", async () => {
    const t0 = Date.now();
    const { pod, container } = withoutVolume(debian, 'host-run');
    const args = (container.args ?? []).map((a) =>
      a.startsWith('--reboot-sentinel=') ? '--reboot-sentinel=/var/run/reboot-required' : a,
    );
    const misplaced = { ...container, args };
    const run = await runAgent(
      { pod: { ...pod, containers: [misplaced] }, container: misplaced },
      node,
      kubeconfig,
      {
        hostPaths: { dbus: folder('dbus') },
      },
    );
    const error = await eventually(
      async () => {
        const e = (await annotations(node))[AGENT_SOURCE_ERROR_ANNOTATION];
        return e?.includes('/var/run/reboot-required') ? e : undefined;
      },
      {
        what: 'the error for /var/run',
        timeoutMs: 45_000,
        intervalMs: 250,
        details: () => run.container.logs(),
      },
    );
    expect(error).toContain("lies on the container's own filesystem (no volume is mounted there)");
    await stop(run);
    seconds.ownFilesystem = (Date.now() - t0) / 1000;
  }, 120_000);
});

describe('the agent image as the rhel overlay runs it (sentinel command on the host)', () => {
  const node = 'image-rhel';
  let kubeconfig: string;
  let host: StandInHost;
  let bin: string;
  let state: string;

  beforeAll(async () => {
    kubeconfig = await nodeWithPod(node);
    state = folder('host-state');
    bin = folder('host-bin');
    // The host's needs-restarting: says where it ran, exits with the code the test writes.
    writeFileSync(
      join(bin, 'needs-restarting'),
      `#!/bin/sh\nreadlink /proc/self/ns/mnt > ${state}/ran-in\nexit "$(cat ${state}/exit-code)"\n`,
      { mode: 0o755 },
    );
    host = await startStandInHost(bin);
  });
  afterAll(() => host?.stop());

  it('runs the host-only script through PID 1’s namespaces; asks when it exits 1', async () => {
    const t0 = Date.now();
    // hostPID means the stand-in host's PID namespace; the script is nowhere else.
    const hostOnly = { hostPaths: { dbus: folder('dbus') }, hostPidNamespace: host.pidNamespace };
    writeFileSync(join(state, 'exit-code'), '0');
    let run = await runAgent(rhel, node, kubeconfig, hostOnly);
    await asks(node, 'false', run);
    const ranIn = readFileSync(join(state, 'ran-in'), 'utf8').trim();
    expect(ranIn).toBe(host.mountNamespace);
    expect(ranIn).not.toBe(readlinkSync('/proc/self/ns/mnt'));
    await stop(run);

    writeFileSync(join(state, 'exit-code'), '1');
    run = await runAgent(rhel, node, kubeconfig, hostOnly);
    await asks(node, 'true', run);
    expect((await annotations(node))[AGENT_SOURCE_ERROR_ANNOTATION]).toBeUndefined();
    await stop(run);
    seconds.sentinelCommand = (Date.now() - t0) / 1000;
  }, 180_000);
});
