/**
 * The chart's capvcd serves CAPVCD's v1beta2 and v1beta1 as the plain manifests do: its CRDs'
 * conversion stanzas name a Service the chart makes in the release namespace, trust the CA of the
 * certificate the chart makes, and the Deployment serves that certificate with --conversion-webhook.
 * Rendered by the real helm, accepted by the real API server (server-side dry run).
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManifestObject } from '../../packages/envtest/src/index.js';
import { container, find, parsedBy, podSpec, renderChart } from './chart.js';
import { buildTools, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);
const env = useControlPlane('helm-capvcd-conversion');

const DEPLOYMENT = 'capstan-capvcd';
interface Crd {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    conversion?: {
      strategy: string;
      webhook: {
        clientConfig: { caBundle?: string; service: { name: string; namespace: string; port: number } };
      };
    };
  };
}
interface Service {
  metadata: { name: string; namespace: string };
  spec: { selector: Record<string, string>; ports: Array<{ port: number; targetPort: string }> };
}
interface Secret {
  data: Record<string, string>;
}
const capvcdCrds = (objects: ManifestObject[]) =>
  (objects.filter((o) => o.kind === 'CustomResourceDefinition') as unknown as Crd[]).filter(
    (c) => c.spec.group === 'infrastructure.cluster.x-k8s.io',
  );
const decode = (text: string) => Buffer.from(text, 'base64').toString('utf8');

async function render(values: object): Promise<ManifestObject[]> {
  const objects = await renderChart(env.namespace, { capvcd: { enabled: true, ...values } });
  await env.plane.applyObjects(objects, { dryRun: true });
  await parsedBy('packages/capvcd/dist/main.js', container(objects, 'Deployment', DEPLOYMENT).args);
  return objects;
}

describe('capvcd in the chart, by default', () => {
  let objects: ManifestObject[];
  beforeAll(async () => {
    objects = await render({});
  }, 120_000);

  it('names, in every converted CRD, the chart’s Service in the release namespace, which selects the pods’ webhook port', () => {
    const crds = capvcdCrds(objects);
    expect(crds.map((c) => c.metadata.name)).toContain('vcdclusters.infrastructure.cluster.x-k8s.io');
    const converted = crds.filter((c) => c.spec.conversion?.strategy === 'Webhook');
    expect(converted.length).toBeGreaterThanOrEqual(3);
    const service = find<Service>(objects, 'Service', 'capstan-capvcd-webhook');
    expect(service.metadata.namespace).toBe(env.namespace);
    for (const crd of converted)
      expect(crd.spec.conversion?.webhook.clientConfig.service).toMatchObject({
        name: service.metadata.name,
        namespace: env.namespace,
        port: service.spec.ports[0]?.port,
      });
    const deployment = find<{ spec: { template: { metadata: { labels: Record<string, string> } } } }>(
      objects,
      'Deployment',
      DEPLOYMENT,
    );
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    const manager = container(objects, 'Deployment', DEPLOYMENT) as ReturnType<typeof container> & {
      ports: Array<{ name: string; containerPort: number }>;
    };
    const port = manager.ports.find((p) => p.name === service.spec.ports[0]?.targetPort)?.containerPort;
    expect(manager.args).toContain('--conversion-webhook');
    expect(manager.args).toContain(`--webhook-port=${port}`);
  });

  it('trusts in each CRD the CA of the certificate the pods mount, issued for that Service', () => {
    const secret = find<Secret>(objects, 'Secret', 'capstan-capvcd-webhook-cert');
    const ca = new X509Certificate(decode(secret.data['ca.crt'] as string));
    const leaf = new X509Certificate(decode(secret.data['tls.crt'] as string));
    expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost(`capstan-capvcd-webhook.${env.namespace}.svc`)).toBeDefined();
    expect(leaf.checkHost('capstan-capvcd-webhook.elsewhere.svc')).toBeUndefined();
    const key = createPublicKey(createPrivateKey(decode(secret.data['tls.key'] as string)));
    expect(key.export({ type: 'spki', format: 'der' })).toEqual(
      leaf.publicKey.export({ type: 'spki', format: 'der' }),
    );
    for (const crd of capvcdCrds(objects).filter((c) => c.spec.conversion))
      expect(crd.spec.conversion?.webhook.clientConfig.caBundle).toBe(secret.data['ca.crt']);
    const { volumes } = podSpec(objects, 'Deployment', DEPLOYMENT) as unknown as {
      volumes: Array<{ name: string; secret?: { secretName: string } }>;
    };
    const manager = container(objects, 'Deployment', DEPLOYMENT);
    const certDir = manager.args.find((a) => a.startsWith('--webhook-cert-dir='))?.split('=')[1];
    const mount = manager.volumeMounts?.find((m) => m.mountPath === certDir);
    expect(volumes.find((v) => v.name === mount?.name)?.secret?.secretName).toBe(
      'capstan-capvcd-webhook-cert',
    );
  });

  it('keeps the CRDs on uninstall (as crds/ would) and needs no cert-manager', () => {
    for (const crd of capvcdCrds(objects)) {
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      expect(crd.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBeUndefined();
    }
    expect(objects.filter((o) => String(o.apiVersion).startsWith('cert-manager.io/'))).toEqual([]);
  });
});

it('conversion-webhook false: no Service, no certificate, no flag; the CRDs still install', async () => {
  const objects = await render({ config: { 'conversion-webhook': false } });
  expect(objects.some((o) => o.metadata?.name === 'capstan-capvcd-webhook')).toBe(false);
  expect(objects.some((o) => o.metadata?.name === 'capstan-capvcd-webhook-cert')).toBe(false);
  expect(container(objects, 'Deployment', DEPLOYMENT).args).not.toContain('--conversion-webhook');
  expect(container(objects, 'Deployment', DEPLOYMENT).volumeMounts).toBeUndefined();
  const crds = capvcdCrds(objects);
  expect(crds).toHaveLength(5);
  for (const crd of crds) expect(crd.spec.conversion?.webhook.clientConfig.caBundle).toBeUndefined();
});
