/**
 * `helm install`, `helm upgrade` and `helm uninstall` for real, with the commands of
 * docs/install.md as the page writes them, against a control plane of this file's own (the chart's
 * objects have fixed cluster-wide names; the namespace controller runs, so a namespace deletion
 * completes). What is left afterwards is compared with what was there before.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../packages/envtest/src/index.js';
import { find } from './chart.js';
import { blockWith, kubectl } from './install-doc.js';
import { buildTools, parseObjects, runTool, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);
const NAMESPACE = 'capstan-system';
const CRD = 'rebootgroups.reboot.capstan.dev';

let plane: ControlPlane;
let helmHome: string;
beforeAll(async () => {
  plane = await ControlPlane.start({ controllerManager: ['namespace'] });
  helmHome = mkdtempSync(join(tmpdir(), 'capstan-helm-'));
  // The API server makes the `kubernetes` Service a moment after it is ready: not ours to count.
  for (
    let i = 0;
    (await plane.request('GET', '/api/v1/namespaces/default/services/kubernetes')).status !== 200;
    i++
  ) {
    if (i === 100) throw new Error('the API server made no kubernetes Service in 50 s');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}, 600_000);
afterAll(() => plane?.stop());

/** Runs one command of the page: helm with this plane's kubeconfig and a helm home of its own. */
async function run(words: string[]): Promise<string> {
  if (words[0] === 'kubectl') {
    await kubectl(plane, words);
    return '';
  }
  if (words[0] !== 'helm') throw new Error(`not a helm or kubectl command: ${words.join(' ')}`);
  return runTool('helm', words.slice(1), {
    env: {
      KUBECONFIG: plane.kubeconfigPath,
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    },
  });
}
const runBlock = async (block: string[][]) => {
  for (const words of block) await run(words);
};

/** Every object of the kinds the chart (or Helm) writes, as `kind namespace/name`. */
async function everything(): Promise<Set<string>> {
  const lists = [
    '/api/v1/namespaces',
    '/api/v1/services',
    '/api/v1/serviceaccounts',
    '/api/v1/secrets',
    '/api/v1/configmaps',
    '/apis/apps/v1/deployments',
    '/apis/apps/v1/daemonsets',
    '/apis/policy/v1/poddisruptionbudgets',
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    '/apis/rbac.authorization.k8s.io/v1/roles',
    '/apis/rbac.authorization.k8s.io/v1/rolebindings',
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  ];
  const names = new Set<string>();
  for (const path of lists) {
    const answer = await plane.request('GET', path);
    expect(answer.status, path).toBe(200);
    const items = (answer.body as { items: Array<{ metadata: { name: string; namespace?: string } }> }).items;
    for (const { metadata } of items)
      names.add(`${path.slice(path.lastIndexOf('/') + 1)} ${metadata.namespace ?? ''}/${metadata.name}`);
  }
  return names;
}
const added = (before: Set<string>, after: Set<string>) => [...after].filter((n) => !before.has(n)).sort();

const namespaceGone = async () => {
  for (let i = 0; i < 120; i++) {
    if ((await plane.request('GET', `/api/v1/namespaces/${NAMESPACE}`)).status === 404) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`namespace ${NAMESPACE} still there after 60 s`);
};

const coordinatorArgs = async () => {
  const answer = await plane.request(
    'GET',
    `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/capstan-coordinator`,
  );
  expect(answer.status).toBe(200);
  return (answer.body as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec
    .template.spec.containers[0]?.args;
};

/** capvcd's conversion webhook certificate (its Secret) and the CA its CRDs trust. */
async function conversionCertificate(): Promise<{ ca: string; crt: string; caBundle: string }> {
  const secret = await plane.request(
    'GET',
    `/api/v1/namespaces/${NAMESPACE}/secrets/capstan-capvcd-webhook-cert`,
  );
  expect(secret.status).toBe(200);
  const data = (secret.body as { data: Record<string, string> }).data;
  const crd = await plane.request(
    'GET',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/vcdclusters.infrastructure.cluster.x-k8s.io',
  );
  const { clientConfig } = (
    crd.body as { spec: { conversion: { webhook: { clientConfig: { caBundle: string } } } } }
  ).spec.conversion.webhook;
  return { ca: data['ca.crt'] as string, crt: data['tls.crt'] as string, caBundle: clientConfig.caBundle };
}

describe('helm as docs/install.md writes it', () => {
  let before: Set<string>;

  it('install with --create-namespace: Helm makes the namespace, the chart everything else', async () => {
    before = await everything();
    const [install] = blockWith('helm', 'install');
    expect(install).toContain('--create-namespace');
    await run(install as string[]);
    const now = added(before, await everything());
    expect(now).toContain(`namespaces /${NAMESPACE}`);
    expect(now).toContain(`customresourcedefinitions /${CRD}`);
    for (const object of [
      'deployments capstan-system/capstan-coordinator',
      'daemonsets capstan-system/capstan-agent',
      'poddisruptionbudgets capstan-system/capstan-coordinator',
      'validatingadmissionpolicies /capstan-agent-evictions',
      'clusterrolebindings /capstan-coordinator',
      'rolebindings default/capstan-agent-events',
    ])
      expect(now).toContain(object);
    // What helm says it installed is what the chart renders.
    const manifest = parseObjects(
      await run(['helm', 'get', 'manifest', 'capstan', '--namespace', NAMESPACE]),
    );
    expect(find(manifest, 'DaemonSet', 'capstan-agent').metadata?.namespace).toBe(NAMESPACE);
    expect(manifest.map((o) => o.kind)).not.toContain('Namespace');
  });

  it('upgrade: the changed value reaches the coordinator Deployment, the rest stays', async () => {
    const old = await coordinatorArgs();
    expect(old).toContain('--default-max-unavailable=1');
    const [upgrade] = blockWith('helm', 'upgrade');
    const set = upgrade?.[upgrade.indexOf('--set') + 1] as string;
    expect(set).toBe('coordinator.config.default-max-unavailable=25%');
    await run(upgrade as string[]);
    const args = await coordinatorArgs();
    expect(args).toContain('--default-max-unavailable=25%');
    expect(args).not.toContain('--default-max-unavailable=1');
    expect(args?.filter((a) => !a.startsWith('--default-max-unavailable'))).toEqual(
      old?.filter((a) => !a.startsWith('--default-max-unavailable')),
    );
    const history = JSON.parse(
      await run(['helm', 'history', 'capstan', '--namespace', NAMESPACE, '-o', 'json']),
    );
    expect(history.map((r: { revision: number }) => r.revision)).toEqual([1, 2]);
  });

  it('uninstall leaves only what Helm always leaves (the namespace, the CRD); the documented cleanup removes them', async () => {
    const [uninstall] = blockWith('helm', 'uninstall');
    await run(uninstall as string[]);
    expect(added(before, await everything())).toEqual([
      `customresourcedefinitions /${CRD}`,
      `namespaces /${NAMESPACE}`,
    ]);
    await runBlock(blockWith('kubectl', 'delete', 'crd', CRD));
    await namespaceGone();
    expect(added(before, await everything())).toEqual([]);
  });

  it('into a namespace the user made and labelled: install, then uninstall leaves it as the user made it', async () => {
    before = await everything();
    const block = blockWith('kubectl', 'create', 'namespace');
    expect(block.at(-1)).not.toContain('--create-namespace');
    await runBlock(block);
    const labelled = await plane.request('GET', `/api/v1/namespaces/${NAMESPACE}`);
    const labels = (labelled.body as { metadata: { labels: Record<string, string> } }).metadata.labels;
    expect(labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'privileged' });
    expect(await coordinatorArgs()).toContain('--leader-elect');
    await run(blockWith('helm', 'uninstall')[0] as string[]);
    const after = await plane.request('GET', `/api/v1/namespaces/${NAMESPACE}`);
    expect((after.body as { metadata: { labels: Record<string, string> } }).metadata.labels).toEqual(labels);
    expect(added(before, await everything())).toEqual([
      `customresourcedefinitions /${CRD}`,
      `namespaces /${NAMESPACE}`,
    ]);
    await runBlock(blockWith('kubectl', 'delete', 'crd', CRD));
    await namespaceGone();
  });

  it('the version operator and capvcd enabled at install: their CRDs and Deployments; uninstall and cleanup as documented', async () => {
    before = await everything();
    const [install] = blockWith('helm', 'install', '+versionOperator.enabled=true');
    await run(install as string[]);
    const crds = [
      'rebootstacks.operator.capstan.dev',
      'vcdclusters.infrastructure.cluster.x-k8s.io',
      'vcdmachines.infrastructure.cluster.x-k8s.io',
      'vcdmachinetemplates.infrastructure.cluster.x-k8s.io',
      'vcdclustertemplates.infrastructure.cluster.x-k8s.io',
      'vcdclusteridentities.infrastructure.cluster.x-k8s.io',
    ];
    const now = added(before, await everything());
    for (const crd of crds) expect(now).toContain(`customresourcedefinitions /${crd}`);
    expect(now).toContain(`deployments ${NAMESPACE}/capstan-version-operator`);
    expect(now).toContain(`deployments ${NAMESPACE}/capstan-capvcd`);
    expect(now).toContain(`services ${NAMESPACE}/capstan-capvcd-webhook`);
    expect(now).toContain(`secrets ${NAMESPACE}/capstan-capvcd-webhook-cert`);
    // An upgrade keeps the conversion webhook's certificate and the CA the CRDs trust.
    const served = await conversionCertificate();
    expect(served.caBundle).toBe(served.ca);
    await run([
      'helm',
      'upgrade',
      'capstan',
      'deploy/helm/capstan',
      '--namespace',
      NAMESPACE,
      '--reuse-values',
    ]);
    expect(await conversionCertificate()).toEqual(served);
    await run(blockWith('helm', 'uninstall')[0] as string[]);
    expect(added(before, await everything())).toEqual(
      [
        `customresourcedefinitions /${CRD}`,
        ...crds.map((c) => `customresourcedefinitions /${c}`),
        `namespaces /${NAMESPACE}`,
      ].sort(),
    );
    await runBlock(blockWith('kubectl', 'delete', 'crd', '+rebootstacks.operator.capstan.dev'));
    await runBlock(blockWith('kubectl', 'delete', 'crd', CRD));
    await namespaceGone();
    expect(added(before, await everything())).toEqual([]);
  });
});
