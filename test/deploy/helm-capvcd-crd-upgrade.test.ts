/**
 * `helm upgrade` of a release installed before capvcd's CRDs became chart templates (commit
 * a3168cf moved them from `crds/`), with the real helm against a real API server: the chart as it
 * was at a3168cf's parent is built from git and installed with capvcd and a VCDCluster; a plain
 * upgrade to today's chart is refused (Helm's ownership check) and changes nothing; each way
 * docs/install.md gives (mark the CRDs, or `--take-ownership`) then upgrades the CRDs to today's
 * (versions served, conversion webhook and its CA), keeps the VCDCluster as it was, and every
 * object of the old release.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../packages/envtest/src/index.js';
import { CHART, find, renderChart } from './chart.js';
import { blockWith, kubectl } from './install-doc.js';
import { chartAt } from './old-chart.js';
import { buildTools, parseObjects, runTool, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);

/** a3168cf's parent: the last commit whose chart had capvcd's CRDs in `crds/`. */
const BEFORE_TEMPLATES = '29880c1d4985de0336301a686d3794dc69076cda';
const NAMESPACE = 'capstan-system';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const VCD_CLUSTER = `/apis/infrastructure.cluster.x-k8s.io/v1beta3/namespaces/${NAMESPACE}/vcdclusters/c1`;
/**
 * Objects today's chart names otherwise than the old one did: capvcd's leader-election Role and
 * its binding took the name of its generated RBAC (`capstan gen rbac` names roles after the manager).
 */
const RENAMED: Record<string, string> = {
  'Role/capstan-capvcd-leader-election': 'Role/capstan-capvcd',
  'RoleBinding/capstan-capvcd-leader-election': 'RoleBinding/capstan-capvcd',
};

interface Crd {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    versions: Array<{ name: string; served: boolean; storage: boolean }>;
    conversion?: {
      strategy: string;
      webhook?: { clientConfig: { caBundle?: string; service?: { name: string; namespace: string } } };
    };
  };
  status?: { storedVersions: string[] };
}
interface Stored {
  metadata: { uid: string; labels?: Record<string, string> };
  spec: Record<string, unknown>;
}

let oldChart: string;
beforeAll(async () => {
  oldChart = await chartAt(BEFORE_TEMPLATES);
}, 120_000);

/** A control plane with the old chart installed (capvcd on) and a VCDCluster; helm bound to it. */
async function oldRelease() {
  const plane = await ControlPlane.start({});
  const home = mkdtempSync(join(tmpdir(), 'capstan-helm-'));
  const helm = (args: string[]) =>
    runTool('helm', args, {
      env: {
        KUBECONFIG: plane.kubeconfigPath,
        HELM_CONFIG_HOME: join(home, 'config'),
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_DATA_HOME: join(home, 'data'),
      },
    });
  await helm([
    'install',
    'capstan',
    oldChart,
    '-n',
    NAMESPACE,
    '--create-namespace',
    '--set',
    'capvcd.enabled=true',
  ]);
  const created = await plane.request('POST', VCD_CLUSTER.slice(0, VCD_CLUSTER.lastIndexOf('/')), {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta3',
    kind: 'VCDCluster',
    metadata: { name: 'c1', namespace: NAMESPACE, labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
    spec: {
      site: 'https://vcd.example.com',
      org: 'tenant-a',
      ovdc: 'vdc-a',
      ovdcNetwork: 'net-a',
      userContext: { secretRef: { name: 'c1-vcd' } },
      controlPlaneEndpoint: { host: '203.0.113.10', port: 6443 },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const manifest = parseObjects(await helm(['get', 'manifest', 'capstan', '-n', NAMESPACE]));
  return { plane, helm, created: created.body as Stored, manifest };
}

const capvcdCrds = async (plane: ControlPlane): Promise<Crd[]> =>
  ((await plane.request('GET', CRDS)).body as { items: Crd[] }).items.filter(
    (c) => c.spec.group === 'infrastructure.cluster.x-k8s.io',
  );
const versions = (crd: Crd) =>
  crd.spec.versions.map(({ name, served, storage }) => ({ name, served, storage }));
const helmHistory = async (helm: (args: string[]) => Promise<string>) =>
  (
    JSON.parse(await helm(['history', 'capstan', '-n', NAMESPACE, '-o', 'json'])) as Array<{
      revision: number;
    }>
  ).map((r) => r.revision);

describe.each([
  ['the CRDs marked as the release’s first', blockWith('kubectl', 'label', 'crd')],
  ['helm upgrade --take-ownership', blockWith('helm', 'upgrade', '+--take-ownership')],
])('upgrading a release from before capvcd’s CRDs were templates: %s', (_, block) => {
  let r: Awaited<ReturnType<typeof oldRelease>>;
  let before: Crd[];
  beforeAll(async () => {
    r = await oldRelease();
    before = await capvcdCrds(r.plane);
  }, 600_000);
  afterAll(() => r?.plane.stop());

  it('the old release made capvcd’s CRDs from crds/: not the release’s, conversion naming no namespace of it', () => {
    expect(before.map((c) => c.metadata.name).sort()).toEqual([
      'vcdclusteridentities.infrastructure.cluster.x-k8s.io',
      'vcdclusters.infrastructure.cluster.x-k8s.io',
      'vcdclustertemplates.infrastructure.cluster.x-k8s.io',
      'vcdmachines.infrastructure.cluster.x-k8s.io',
      'vcdmachinetemplates.infrastructure.cluster.x-k8s.io',
    ]);
    for (const crd of before) {
      expect(crd.metadata.annotations?.['meta.helm.sh/release-name']).toBeUndefined();
      expect(crd.spec.conversion?.webhook?.clientConfig.caBundle).toBeUndefined();
    }
  });

  it('a plain helm upgrade is refused for the CRDs’ ownership and changes nothing', async () => {
    // The page's upgrade without its first step.
    const upgrade = (blockWith('kubectl', 'label', 'crd').at(-1) as string[]).slice(1);
    expect(upgrade.slice(0, 3)).toEqual(['upgrade', 'capstan', CHART]);
    await expect(r.helm(upgrade)).rejects.toThrow(/CustomResourceDefinition.*invalid ownership metadata/s);
    expect(await capvcdCrds(r.plane)).toEqual(before);
    expect(await helmHistory(r.helm)).toEqual([1]);
  });

  it('as docs/install.md writes it: today’s CRDs, the VCDCluster as it was, nothing of the release lost', async () => {
    for (const words of block) {
      if (words[0] === 'kubectl') await kubectl(r.plane, words);
      else await r.helm(words.slice(1));
    }
    expect(await helmHistory(r.helm)).toEqual([1, 2]);
    const wanted = (await renderChart(NAMESPACE, { capvcd: { enabled: true } })).filter(
      (o) => o.kind === 'CustomResourceDefinition',
    ) as unknown as Crd[];
    const secret = (
      await r.plane.request('GET', `/api/v1/namespaces/${NAMESPACE}/secrets/capstan-capvcd-webhook-cert`)
    ).body as { data: Record<string, string> };
    const live = await capvcdCrds(r.plane);
    expect(live.map((c) => c.metadata.name).sort()).toEqual(
      wanted
        .filter((c) => c.spec.group === 'infrastructure.cluster.x-k8s.io')
        .map((c) => c.metadata.name)
        .sort(),
    );
    const converted: string[] = [];
    for (const crd of live) {
      const today = find<Crd>(wanted as never, 'CustomResourceDefinition', crd.metadata.name);
      expect(versions(crd), crd.metadata.name).toEqual(versions(today));
      expect(crd.spec.conversion?.strategy ?? 'None').toBe(today.spec.conversion?.strategy ?? 'None');
      if (today.spec.conversion?.strategy === 'Webhook') {
        expect(crd.spec.conversion?.webhook?.clientConfig.service).toMatchObject({
          name: 'capstan-capvcd-webhook',
          namespace: NAMESPACE,
        });
        expect(crd.spec.conversion?.webhook?.clientConfig.caBundle).toBe(secret.data['ca.crt']);
        converted.push(crd.metadata.name);
      }
      expect(crd.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
      expect(crd.metadata.annotations).toMatchObject({
        'meta.helm.sh/release-name': 'capstan',
        'meta.helm.sh/release-namespace': NAMESPACE,
        'helm.sh/resource-policy': 'keep',
      });
      expect(crd.status?.storedVersions).toContain('v1beta3');
    }
    expect(converted).toContain('vcdclusters.infrastructure.cluster.x-k8s.io');
    expect(converted.length).toBeGreaterThanOrEqual(3);
    // The custom resource: the same object, its spec untouched.
    const after = (await r.plane.request('GET', VCD_CLUSTER)).body as Stored;
    expect(after.metadata.uid).toBe(r.created.metadata.uid);
    expect(after.spec).toEqual(r.created.spec);
    // Every object of the old release is still the release's, and there (under its new name where
    // a later chart renamed it).
    const manifest = parseObjects(await r.helm(['get', 'manifest', 'capstan', '-n', NAMESPACE]));
    const names = new Set(manifest.map((o) => `${o.kind}/${o.metadata?.name}`));
    for (const o of r.manifest) {
      const name = `${o.kind}/${o.metadata?.name}`;
      expect(names.has(RENAMED[name] ?? name), name).toBe(true);
    }
    expect(names.has('CustomResourceDefinition/vcdclusters.infrastructure.cluster.x-k8s.io')).toBe(true);
    const deployment = await r.plane.request(
      'GET',
      `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/capstan-capvcd`,
    );
    expect(deployment.status).toBe(200);
  });
});
