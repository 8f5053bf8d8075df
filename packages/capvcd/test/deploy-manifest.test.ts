/**
 * deploy/manager.yaml agrees with main and with deploy/rbac.yaml: its args parse with main's own
 * parser into the lease the RBAC lets it hold, in the namespace and as the ServiceAccount the RBAC
 * names, serving metrics and probes on the ports the container declares and probes, and the
 * conversion webhook that crds.yaml calls with webhook.yaml's Service and certificate.
 */
import { fileURLToPath } from 'node:url';
import { type ManifestObject, readManifests } from '@capstan/envtest';
import { describe, expect, it } from 'vitest';
import { parseCapvcdArgs } from '../src/index.js';

const deploy = (file: string) => fileURLToPath(new URL(`../deploy/${file}`, import.meta.url));
const manager = readManifests(deploy('manager.yaml'));
const rbac = readManifests(deploy('rbac.yaml'));
const webhook = readManifests(deploy('webhook.yaml'));
const crds = readManifests(deploy('crds.yaml'));

interface Container {
  name: string;
  args: string[];
  ports: Array<{ name: string; containerPort: number }>;
  volumeMounts: Array<{ name: string; mountPath: string }>;
  livenessProbe: { httpGet: { port: string } };
  readinessProbe: { httpGet: { port: string } };
}
interface PodSpec {
  serviceAccountName: string;
  containers: Container[];
  volumes: Array<{ name: string; secret?: { secretName: string } }>;
}
const deployment = manager.find((o) => o.kind === 'Deployment') as ManifestObject & {
  spec: { template: { metadata?: { labels?: Record<string, string> }; spec: PodSpec } };
};
const pod = deployment.spec.template.spec;
const container = pod.containers.find((c) => c.name === 'manager') as Container;

/** A usage error must fail the test, never end the test process. */
const parse = (args: string[]) =>
  parseCapvcdArgs(args, {
    exit: (code) => {
      throw new Error(`main would exit ${code} on ${JSON.stringify(args)}`);
    },
    output: { writeOut: () => {}, writeErr: () => {} },
  });

const portOf = (address: string) => Number(address.split(':').at(-1));

describe('deploy/manager.yaml', () => {
  it('passes only args main accepts', () => {
    expect(() => parse(container.args)).not.toThrow();
    // The parser does refuse what main refuses, so the line above can fail.
    expect(() => parse([...container.args, '--no-such-flag'])).toThrow(/exit 2/);
    expect(() => parse([...container.args, '--concurrency=none'])).toThrow(/--concurrency/);
  });

  it('elects a leader on the lease the RBAC grants, in the Deployment’s namespace', () => {
    const { standard } = parse(container.args);
    expect(standard.leaderElect).toBe(true);
    expect(standard.leaderElectionNamespace).toBe(deployment.metadata?.namespace);
    const role = rbac.find((o) => o.kind === 'Role' && o.metadata?.name === 'capstan-capvcd') as
      | (ManifestObject & { rules: Array<{ verbs: string[]; resourceNames?: string[] }> })
      | undefined;
    expect(role?.metadata?.namespace).toBe(standard.leaderElectionNamespace);
    const named = role?.rules.find((r) => r.verbs.includes('update'));
    expect(named?.resourceNames).toEqual([standard.leaderElectionId]);
  });

  it('runs as the ServiceAccount the RBAC binds', () => {
    const account = rbac.find((o) => o.kind === 'ServiceAccount');
    expect(pod.serviceAccountName).toBe(account?.metadata?.name);
    expect(account?.metadata?.namespace).toBe(deployment.metadata?.namespace);
    const bindings = rbac.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') as Array<
      ManifestObject & { subjects: Array<{ name: string; namespace: string }> }
    >;
    expect(bindings.length).toBeGreaterThan(0);
    for (const b of bindings)
      expect(b.subjects).toEqual([
        { kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: deployment.metadata?.namespace },
      ]);
  });

  it('serves metrics and probes on the ports the container declares and probes', () => {
    const { standard, options } = parse(container.args);
    const port = (name: string) => container.ports.find((p) => p.name === name)?.containerPort;
    expect(portOf(standard.metricsBindAddress)).toBe(port('metrics'));
    expect(portOf(standard.healthProbeBindAddress)).toBe(port('probes'));
    expect(container.livenessProbe.httpGet.port).toBe('probes');
    expect(container.readinessProbe.httpGet.port).toBe('probes');
    expect(options.concurrency).toBe(10);
  });

  it('serves the conversion the CRDs call, on the Service and with the certificate webhook.yaml makes', () => {
    const { standard, options } = parse(container.args);
    expect(options.conversionWebhook).toBe(true);
    expect(container.ports.find((p) => p.name === 'webhook')?.containerPort).toBe(standard.webhookPort);
    const service = webhook.find((o) => o.kind === 'Service') as ManifestObject & {
      spec: { selector: Record<string, string>; ports: Array<{ targetPort: string }> };
    };
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual(['webhook']);
    expect(deployment.spec.template.metadata?.labels).toMatchObject(service.spec.selector);
    const converted = crds.filter((o) => (o.spec as { conversion?: unknown }).conversion !== undefined);
    expect(converted.length).toBeGreaterThan(0);
    for (const crd of converted)
      expect(crd.spec).toMatchObject({
        conversion: {
          webhook: {
            clientConfig: {
              service: { name: service.metadata?.name, namespace: service.metadata?.namespace },
            },
          },
        },
      });
    const certificate = webhook.find((o) => o.kind === 'Certificate') as ManifestObject & {
      spec: { secretName: string; dnsNames: string[] };
    };
    expect(certificate.spec.dnsNames).toContain(
      `${service.metadata?.name}.${service.metadata?.namespace}.svc`,
    );
    const mount = container.volumeMounts.find((m) => m.mountPath === standard.webhookCertDir);
    const volume = pod.volumes.find((v) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBe(certificate.spec.secretName);
    for (const crd of converted) {
      const annotations = (crd.metadata?.annotations ?? {}) as Record<string, string>;
      expect(annotations['cert-manager.io/inject-ca-from']).toBe(
        `${certificate.metadata?.namespace}/${certificate.metadata?.name}`,
      );
    }
  });
});
