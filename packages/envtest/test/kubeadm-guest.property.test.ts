/**
 * The kubeadm guest's pure parts: reading bootstrap data as cloud-init and Ignition would (the same
 * files and commands give the same kubeadm step in either format), and the objects kubeadm leaves
 * (Node registration, mirror pods, uploads, bootstrap tokens).
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readGuestBootstrap } from '../src/guest-bootstrap.js';
import {
  bootstrapTokenSecret,
  controlPlaneNodeRole,
  controlPlanePods,
  initUploads,
  nodeRegistration,
} from '../src/kubeadm-objects.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const metadata = (hostname: string) => ({
  'guestinfo.metadata': b64(
    JSON.stringify({ 'instance-id': `urn:vcloud:vm:${hostname}`, 'local-hostname': hostname }),
  ),
  'guestinfo.metadata.encoding': 'base64',
});

type Step = 'init' | 'join-control-plane' | 'join';
const configPath = '/run/kubeadm/kubeadm.yaml';
const kubeadmYaml = (step: Step, version: string) =>
  step === 'init'
    ? `---\n${stringify({ apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ClusterConfiguration', kubernetesVersion: version })}---\n${stringify({ apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'InitConfiguration' })}`
    : stringify({
        apiVersion: 'kubeadm.k8s.io/v1beta4',
        kind: 'JoinConfiguration',
        ...(step === 'join-control-plane' ? { controlPlane: { localAPIEndpoint: {} } } : {}),
      });
const command = (step: Step) => `kubeadm ${step === 'init' ? 'init' : 'join'} --config ${configPath}`;

/** CABPK's cloud-config shape: write_files (plain or base64) and runcmd. */
function cloudConfig(step: Step, version: string, encoded: boolean): Record<string, string> {
  const content = kubeadmYaml(step, version);
  const text = `## template: jinja\n#cloud-config\n${stringify({
    write_files: [
      { path: configPath, ...(encoded ? { encoding: 'b64', content: b64(content) } : { content }) },
    ],
    runcmd: [`echo pre`, command(step)],
  })}`;
  return { 'guestinfo.userdata': b64(text), 'guestinfo.userdata.encoding': 'base64' };
}

/** CABPK's Ignition shape: files as data URLs, /etc/kubeadm.sh started by kubeadm.service. */
function ignition(step: Step, version: string, gzip: boolean): Record<string, string> {
  const source = (text: string) =>
    gzip
      ? { source: `data:;base64,${gzipSync(Buffer.from(text)).toString('base64')}`, compression: 'gzip' }
      : { source: `data:,${encodeURIComponent(text)}` };
  const config = {
    ignition: { version: '3.4.0' },
    storage: {
      files: [
        { path: configPath, contents: source(kubeadmYaml(step, version)) },
        { path: '/etc/kubeadm.sh', contents: source(`#!/bin/bash\nset -e\n${command(step)}\n`) },
      ],
    },
    systemd: {
      units: [
        {
          name: 'kubeadm.service',
          enabled: true,
          contents: '[Service]\nExecStart=/bin/bash /etc/kubeadm.sh\n',
        },
      ],
    },
  };
  return {
    'guestinfo.ignition.config.data': b64(JSON.stringify(config)),
    'guestinfo.ignition.config.data.encoding': 'base64',
  };
}

const step = fc.constantFrom<Step>('init', 'join-control-plane', 'join');
const version = fc.tuple(fc.nat(40), fc.nat(20)).map(([minor, patch]) => `v1.${minor}.${patch}`);
const hostname = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/);

describe('reading bootstrap data', () => {
  it('property: cloud-config and Ignition give the same step, host and kubeadm documents', () => {
    fc.assert(
      fc.property(step, version, hostname, fc.boolean(), (s, v, host, flag) => {
        const a = readGuestBootstrap({ ...metadata(host), ...cloudConfig(s, v, flag) });
        const b = readGuestBootstrap({ ...metadata(host), ...ignition(s, v, flag) });
        expect([a.format, b.format]).toEqual(['cloud-config', 'ignition']);
        for (const g of [a, b]) {
          expect(g).toMatchObject({ hostname: host, instanceId: `urn:vcloud:vm:${host}`, step: s });
          if (s === 'init') expect(g.kubeadmConfig.ClusterConfiguration?.kubernetesVersion).toBe(v);
        }
        expect(a.kubeadmConfig).toEqual(b.kubeadmConfig);
      }),
    );
  });

  it('refuses what it cannot run, saying why', () => {
    const meta = metadata('cp-0');
    expect(() => readGuestBootstrap(meta)).toThrow('neither guestinfo.userdata nor guestinfo.ignition');
    const noConfig = b64('#cloud-config\nruncmd: ["kubeadm init"]\n');
    expect(() =>
      readGuestBootstrap({
        ...meta,
        'guestinfo.userdata': noConfig,
        'guestinfo.userdata.encoding': 'base64',
      }),
    ).toThrow('without --config');
    const missing = b64(`#cloud-config\nruncmd: ["${command('init')}"]\n`);
    expect(() =>
      readGuestBootstrap({ ...meta, 'guestinfo.userdata': missing, 'guestinfo.userdata.encoding': 'base64' }),
    ).toThrow('no such file written');
    expect(() => readGuestBootstrap({ ...meta, 'guestinfo.ignition.config.data': '{}' })).toThrow(
      'no ignition.version',
    );
  });
});

describe('what kubeadm leaves', () => {
  it('property: control-plane nodes get kubeadm’s label and taint unless taints are given; workers neither', () => {
    const taint = fc.record({
      key: fc.stringMatching(/^[a-z]{1,8}$/),
      effect: fc.constant('NoSchedule' as const),
    });
    fc.assert(
      fc.property(step, fc.option(fc.array(taint, { maxLength: 3 }), { nil: undefined }), (s, taints) => {
        const r = nodeRegistration(s, taints === undefined ? {} : { nodeRegistration: { taints } });
        const controlPlane = s !== 'join';
        expect(controlPlaneNodeRole in r.labels).toBe(controlPlane);
        const expected =
          taints ?? (controlPlane ? [{ key: controlPlaneNodeRole, effect: 'NoSchedule' }] : []);
        expect(r.taints).toEqual(expected);
      }),
    );
  });

  it('property: three mirror pods with external etcd, four with stacked etcd, owned by the Node', () => {
    fc.assert(
      fc.property(hostname, version, fc.boolean(), (name, v, external) => {
        const config = external ? { etcd: { external: { endpoints: ['https://e:2379'] } } } : {};
        const pods = controlPlanePods({ name, uid: 'u-1' }, config, v);
        expect(pods).toHaveLength(external ? 3 : 4);
        for (const pod of pods) {
          const meta = pod.metadata as {
            name: string;
            labels: Record<string, string>;
            ownerReferences: unknown[];
            annotations: Record<string, string>;
          };
          expect(meta.name).toBe(`${meta.labels.component}-${name}`);
          expect(meta.labels.tier).toBe('control-plane');
          expect(meta.annotations['kubernetes.io/config.mirror']).toBeTruthy();
          expect(meta.ownerReferences).toEqual([
            { apiVersion: 'v1', kind: 'Node', name, uid: 'u-1', controller: true },
          ]);
          expect((pod.spec as { nodeName: string }).nodeName).toBe(name);
        }
        const apiserver = pods[0]?.spec as { containers: Array<{ image: string }> };
        expect(apiserver.containers[0]?.image).toBe(`registry.k8s.io/kube-apiserver:${v}`);
      }),
    );
  });

  it('init uploads kubeadm-config with its version, kubelet-config, cluster-info and its tokens', () => {
    const objects = initUploads(
      {
        ClusterConfiguration: { kind: 'ClusterConfiguration', controlPlaneEndpoint: '10.0.0.9:6443' },
        InitConfiguration: { bootstrapTokens: [{ token: 'abcdef.0123456789abcdef' }] },
      },
      'v1.35.0',
      'CA',
    );
    expect(objects.map((o) => `${o.kind} ${(o.metadata as { name: string }).name}`)).toEqual([
      'ConfigMap kubeadm-config',
      'ConfigMap kubelet-config',
      'ConfigMap cluster-info',
      'Secret bootstrap-token-abcdef',
    ]);
    const data = (i: number) => (objects[i]?.data ?? {}) as Record<string, string>;
    expect(data(0).ClusterConfiguration).toContain('kubernetesVersion: v1.35.0');
    expect(data(2).kubeconfig).toContain('https://10.0.0.9:6443');
  });

  it('property: a bootstrap token Secret splits id and secret; a malformed token is refused', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{6}$/), fc.stringMatching(/^[a-z0-9]{16}$/), (id, secret) => {
        const s = bootstrapTokenSecret({ token: `${id}.${secret}` });
        expect((s.metadata as { name: string }).name).toBe(`bootstrap-token-${id}`);
        expect(s.stringData).toMatchObject({
          'token-id': id,
          'token-secret': secret,
          'usage-bootstrap-authentication': 'true',
        });
      }),
    );
    expect(() => bootstrapTokenSecret({ token: 'short.x' })).toThrow('not a bootstrap token');
  });
});
