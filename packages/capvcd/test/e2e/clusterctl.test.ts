// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The clusterctl repository this provider ships, read by the real clusterctl (v1.14.2, built from
 * the Go module proxy on first use and cached by envtest): `generate provider` accepts the
 * components (one namespace, the container `manager`), `generate cluster` fills every flavor from
 * the local file repository, and the real apiserver (Cluster API's, KubeadmControlPlane's and our
 * CRDs installed) accepts every object of each in a server-side dry run.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type Assets,
  ControlPlane,
  readManifests,
  resolveAssets,
  withContractLabels,
} from '@capstan/envtest';
import { Client, defineResource, type KubeObject } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { flavors } from '../../src/clusterctl/flavors.js';
import {
  clusterctlConfig,
  templateFile,
  writeClusterctlRepository,
} from '../../src/clusterctl/repository.js';
import { deploy } from './harness.js';

const run = promisify(execFile);
const VERSION = 'v0.1.0';
/** What a user sets for `generate cluster` (the site and credentials of the templates). */
const variables = {
  VCD_SITE: 'https://vcd.example.com',
  VCD_ORG: 'tenant-a',
  VCD_ORGVDC: 'vdc-a',
  VCD_ORGVDC_NETWORK: 'net-a',
  VCD_CATALOG: 'templates',
  VCD_TEMPLATE_NAME: 'ubuntu-2404-kube-v1.35',
  VCD_REFRESH_TOKEN_B64: Buffer.from('api-token').toString('base64'),
  CONTROL_PLANE_ENDPOINT_IP: '10.10.0.7',
  VCD_ZONE_1_ORGVDC: 'vdc-a',
  VCD_ZONE_1_ORGVDC_NETWORK: 'net-a',
  VCD_ZONE_2_ORGVDC: 'vdc-b',
  VCD_ZONE_2_ORGVDC_NETWORK: 'net-b',
};

let assets: Assets;
let plane: ControlPlane;
let client: Client;
let root: string;
const home = mkdtempSync(join(tmpdir(), 'capvcd-clusterctl-home-'));

beforeAll(async () => {
  assets = await resolveAssets({ with: ['cluster-api', 'clusterctl'] });
  plane = await ControlPlane.start();
  client = new Client(new HttpTransport(plane.kubeConfig));
  const crdFiles = (dir: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => readManifests(join(dir, f)));
  const capi = assets.clusterApi as NonNullable<Assets['clusterApi']>;
  const kcp = assets.clusterctl as NonNullable<Assets['clusterctl']>;
  await plane.installCRDs([
    ...[join(capi.crdDir, 'core'), join(capi.crdDir, 'kubeadm-bootstrap'), kcp.kubeadmControlPlaneCrdDir]
      .flatMap(crdFiles)
      .map((crd) => withContractLabels(crd)),
    deploy('crds.yaml'),
  ]);
  await plane.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' } }]);
  root = mkdtempSync(join(tmpdir(), 'capvcd-clusterctl-repo-'));
  writeClusterctlRepository(root, VERSION);
  writeFileSync(join(root, 'clusterctl.yaml'), clusterctlConfig(root, VERSION));
}, 900_000);
afterAll(async () => {
  await plane?.stop();
  rmSync(home, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs the real clusterctl with a private home (no ~/.cluster-api), answering stdout. */
async function clusterctl(args: string[], env: Record<string, string> = variables): Promise<string> {
  const binary = assets.clusterctl?.binary as string;
  const { stdout } = await run(binary, [...args, '--config', join(root, 'clusterctl.yaml')], {
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, ...env },
    maxBuffer: 32 * 1024 * 1024,
  });
  return stdout;
}

type Manifest = KubeObject & { apiVersion: string; kind: string };
const parse = (yaml: string) =>
  parseAllDocuments(yaml)
    .map((d) => d.toJSON() as Manifest | null)
    .filter((o): o is Manifest => o !== null);

/** Server-side apply, dry run: the apiserver validates each object against its CRD schema. */
async function dryRun(objects: Manifest[]): Promise<void> {
  for (const o of objects) {
    const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
    const plural = o.kind.toLowerCase().endsWith('s')
      ? `${o.kind.toLowerCase()}es`
      : `${o.kind.toLowerCase()}s`;
    const cluster = ['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'].includes(
      o.kind,
    );
    const type = defineResource<KubeObject>({
      group: group as string,
      version: version as string,
      kind: o.kind,
      plural: o.kind === 'VCDClusterIdentity' ? 'vcdclusteridentities' : plural,
      namespaced: !cluster,
    });
    await client
      .apply(type, o, { fieldManager: 'clusterctl-test', dryRun: true, force: true })
      .catch((err: Error) => {
        throw new Error(`${o.kind} ${o.metadata.name}: ${err.message}`);
      });
  }
}

describe('the clusterctl repository, under the real clusterctl', () => {
  it('clusterctl reads the components: one namespace, the manager container; the apiserver accepts them', async () => {
    const objects = parse(
      await clusterctl(['generate', 'provider', '--infrastructure', `capvcd:${VERSION}`]),
    );
    const namespaces = new Set(objects.map((o) => o.metadata.namespace).filter(Boolean));
    expect([...namespaces]).toEqual(['capvcd-system']);
    const deployment = objects.find((o) => o.kind === 'Deployment') as Manifest & {
      spec: { template: { spec: { containers: Array<{ name: string; image: string; args: string[] }> } } };
    };
    const manager = deployment.spec.template.spec.containers.find((c) => c.name === 'manager');
    expect(manager?.args).toContain('--vcd-qps=10');
    expect(manager?.image).toBe('ghcr.io/capstan-dev/capvcd:0.1.0'); // as deploy/manager.yaml names it
    // The conversion webhook's certificate comes from cert-manager (clusterctl init installs it;
    // its CRDs are not here): the Certificate writes the Secret the Deployment mounts, and names
    // the Service the CRDs' conversion calls.
    const certManager = objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/'));
    expect(certManager.map((o) => o.kind).sort()).toEqual(['Certificate', 'Issuer']);
    const certificate = certManager.find((o) => o.kind === 'Certificate') as Manifest & {
      spec: { secretName: string; dnsNames: string[] };
    };
    expect(JSON.stringify(deployment)).toContain(`"secretName":"${certificate.spec.secretName}"`);
    const crd = objects.find(
      (o) => o.metadata.name === `vcdclusters.infrastructure.cluster.x-k8s.io`,
    ) as Manifest & {
      spec: { conversion: { webhook: { clientConfig: { service: { name: string; namespace: string } } } } };
    };
    const service = crd.spec.conversion.webhook.clientConfig.service;
    expect(certificate.spec.dnsNames).toContain(`${service.name}.${service.namespace}.svc`);
    expect(crd.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe(
      `capvcd-system/${certificate.metadata.name}`,
    );
    expect(manager?.args).toContain('--conversion-webhook');
    // A dry run creates nothing: the namespace is made for real, the rest only validated.
    await plane.createObjects(objects.filter((o) => o.kind === 'Namespace'));
    await dryRun(objects.filter((o) => o.kind !== 'Namespace' && !certManager.includes(o)));
  }, 120_000);

  for (const flavor of flavors) {
    it(`generate cluster --flavor ${flavor.name || '(default)'}: accepted by the apiserver`, async () => {
      const name = `c-${flavor.name || 'default'}`;
      const args = ['generate', 'cluster', name, '--infrastructure', `capvcd:${VERSION}`];
      if (flavor.name) args.push('--flavor', flavor.name);
      args.push('--target-namespace', 'tenant-a', '--kubernetes-version', 'v1.35.0');
      args.push('--control-plane-machine-count', '3', '--worker-machine-count', '2');
      const objects = parse(await clusterctl(args));
      await dryRun(objects);
      const kinds = objects.map((o) => o.kind);
      expect(kinds).toContain('Secret');
      const vcd = objects.find(
        (o) => o.kind === 'VCDCluster' || o.kind === 'VCDClusterTemplate',
      ) as Manifest & {
        spec: Record<string, unknown>;
      };
      expect(JSON.stringify(vcd.spec)).toContain('"site":"https://vcd.example.com"');
      if (flavor.name === 'topology') {
        expect(kinds).toEqual(expect.arrayContaining(['ClusterClass', 'KubeadmControlPlaneTemplate']));
      } else {
        expect(kinds).toEqual(expect.arrayContaining(['KubeadmControlPlane', 'MachineDeployment']));
        const endpoint = (vcd.spec.controlPlaneEndpoint as { host?: string } | undefined)?.host;
        const lb = vcd.spec.loadBalancerConfigSpec as { disabled?: boolean } | undefined;
        // Default, ignition and multi-zone make the load balancer; endpoint and no-lb name the
        // host they run and switch the load balancer off (a host alone would be its VIP).
        const own = ['endpoint', 'no-lb'].includes(flavor.name);
        expect(endpoint).toBe(own ? '10.10.0.7' : undefined);
        expect(lb?.disabled).toBe(own ? true : undefined);
      }
    }, 120_000);
  }

  it('a missing site or credentials variable is refused by clusterctl, naming it', async () => {
    const { VCD_SITE: _site, ...withoutSite } = variables;
    await expect(
      clusterctl(
        ['generate', 'cluster', 'c', '--infrastructure', `capvcd:${VERSION}`, '--target-namespace', 't'],
        withoutSite,
      ),
    ).rejects.toThrow(/VCD_SITE/);
  }, 60_000);
});

// Keep the list of templates and the flavors in step.
describe('the repository layout', () => {
  it('has a template per flavor, the class, components and metadata', () => {
    const files = readdirSync(join(root, 'infrastructure-capvcd', VERSION)).sort();
    expect(files).toEqual(
      [
        ...flavors.map((f) => templateFile(f.name)),
        'clusterclass-capvcd.yaml',
        'infrastructure-components.yaml',
        'metadata.yaml',
      ].sort(),
    );
  });
});
