/**
 * The coordinator's and the agent's images, built from their unchanged Dockerfiles and run as
 * their manifests say: the coordinator as its Deployment (uid 65532, read-only root, every
 * capability dropped) with its ServiceAccount's kubeconfig; the agent as its DaemonSet (root for
 * the host's bus, read-only root, /var/run/dbus and the host's /etc/os-release mounted, the
 * update_engine source) with a token bound to its pod on its node. The "host's" system bus is a
 * private dbus-daemon whose socket folder is mounted at /var/run/dbus, with the stand-ins for
 * update_engine and logind the agent's own tests use. Both reach /readyz; the agent reports its
 * node; once update_engine needs a reboot, the coordinator grants it and the agent drains and
 * asks logind to reboot.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { podBoundKubeConfig, readManifests } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { DaemonSet, HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateStatus } from '../../packages/agent/src/dbus/update-engine.js';
import { FakeLogind } from '../../packages/agent/src/testing/fake-logind.js';
import { FakeUpdateEngine } from '../../packages/agent/src/testing/fake-update-engine.js';
import { type PrivateBus, startPrivateBus } from '../../packages/agent/src/testing/private-bus.js';
import { createNode, createPodOn } from '../../packages/agent/test/helpers.js';
import { root } from '../packaging/packages.js';
import { build, type ImageUnderTest, type Started, start } from './fixture.js';
import { imageName } from './podman.js';

const NS = 'capstan-system';
const coordinator: ImageUnderTest = {
  tag: imageName('coordinator'),
  dockerfile: 'packages/coordinator/Dockerfile',
  manifest: 'packages/coordinator/deploy/coordinator.yaml',
};
const agent: ImageUnderTest = {
  tag: imageName('agent'),
  dockerfile: 'packages/agent/Dockerfile',
  manifest: 'packages/agent/deploy/daemonset.yaml',
};
const deploy = (file: string) => readManifests(join(root, 'packages', file));

beforeAll(async () => {
  await build(coordinator);
  await build(agent);
}, 900_000);
const env = useOwnControlPlane({}, 'reboot-images');

let admin: Client;
let bus: PrivateBus;
let engine: FakeUpdateEngine;
let logind: FakeLogind;
const started: Started[] = [];
const node = 'image-node-1';
const logs = () => started.map((s) => `--- ${s.container.name}\n${s.container.logs()}`).join('\n');

beforeAll(async () => {
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.createObjects([
    ...deploy('coordinator/deploy/namespace.yaml'),
    ...deploy('coordinator/deploy/crds/rebootgroups.yaml'),
    ...deploy('coordinator/deploy/rbac.yaml'),
    ...deploy('coordinator/deploy/admission-policy.yaml'),
    ...deploy('agent/deploy/rbac.yaml'),
    ...deploy('agent/deploy/admission-policy.yaml'),
    ...deploy('agent/deploy/daemonset.yaml'),
  ]);
  // The machine the container runs on is this one: its boot ID is the node's.
  const bootID = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  await createNode(admin, node, { bootID });
  const daemonSet = await admin.get(DaemonSet, { namespace: NS, name: 'capstan-agent' });
  await createPodOn(admin, NS, 'capstan-agent-image', node, daemonSet);

  bus = await startPrivateBus();
  // The DaemonSet mounts the host's /var/run/dbus; the bus's socket is system_bus_socket there.
  symlinkSync('bus.sock', join(bus.socketPath, '..', 'system_bus_socket'));
  engine = await FakeUpdateEngine.start({ address: bus.address });
  logind = await FakeLogind.start({ address: bus.address });
});

afterAll(async () => {
  for (const s of started.reverse()) await s.stop();
  await logind?.stop();
  await engine?.stop();
  await bus?.stop();
});

describe('the coordinator and agent images', () => {
  it('get ready; the agent reports its node, and a needed reboot is granted and carried out', async () => {
    const coordinatorConfig = await env.plane.serviceAccountKubeConfig(NS, 'capstan-coordinator');
    started.push(
      await start(coordinator, {
        kubeconfig: readFileSync(coordinatorConfig.path, 'utf8'),
        fields: { 'metadata.namespace': NS },
      }),
    );
    const bound = await podBoundKubeConfig(env.kubeConfig, NS, 'capstan-agent', 'capstan-agent-image');
    started.push(
      await start(agent, {
        kubeconfig: bound.exportConfig(),
        fields: { 'metadata.namespace': NS, 'spec.nodeName': node },
        hostPaths: { dbus: join(bus.socketPath, '..') },
      }),
    );
    const { rebootNeeded } = capstanProtocol.annotations;
    const annotation = async () =>
      (await admin.get(Node, { name: node })).metadata.annotations?.[rebootNeeded];
    await eventually(async () => (await annotation()) === 'false', {
      what: `${rebootNeeded}=false on ${node}`,
      timeoutMs: 60_000,
      details: logs,
    });

    engine.setStatus({ operation: UpdateStatus.UpdatedNeedReboot, newVersion: '3975.2.1' });
    await eventually(() => logind.reboots.length > 0, {
      what: 'the agent to ask logind to reboot, once granted',
      timeoutMs: 90_000,
      intervalMs: 250,
      details: logs,
    });
    const cordoned = await admin.get(Node, { name: node });
    expect(cordoned.spec?.unschedulable, logs()).toBe(true);
    expect(cordoned.metadata.annotations?.[rebootNeeded]).toBe('true');
    const [coordinatorRun, agentRun] = started;
    expect((await coordinatorRun!.container.get('metrics', '/metrics')).body).toContain('capstan_');
    expect((await agentRun!.container.get('probes', '/healthz')).status).toBe(200);
  }, 240_000);
});
