/**
 * The deploy/ manifests `npm create capstan` writes, with secure metrics on (the scaffold's
 * default), accepted by the real apiserver: RBAC for the reviews, the reader role, the metrics
 * Service and the https ServiceMonitor (strict field validation, server-side dry run).
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { skeletonFiles } from '../../packages/create-capstan/src/skeleton.js';
import type { CrdObject, ManifestObject } from '../../packages/envtest/src/index.js';
import { monitoringCrdFiles } from './monitoring-crds.js';

const env = useControlPlane('scaffold-deploy');
beforeAll(async () => {
  await env.plane.installCRDs(await monitoringCrdFiles());
}, 300_000);

const name = `shop-${process.pid}`;
const files = skeletonFiles(name, { capstan: '0.1.0' });
const objects = (path: string): ManifestObject[] =>
  parseAllDocuments(files.get(path) ?? '')
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);

it('applies the secure-metrics deploy/ of a new project, ServiceMonitor included', async () => {
  await env.plane.applyObjects(objects('deploy/namespace.yaml'));
  await env.plane.installCRDs(objects('deploy/crd.yaml') as CrdObject[]);
  const rest = [
    'deploy/rbac.yaml',
    'deploy/rbac-metrics.yaml',
    'deploy/deployment.yaml',
    'deploy/metrics-service.yaml',
    'deploy/prometheus/monitor.yaml',
  ].flatMap(objects);
  expect(rest.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual(
    expect.arrayContaining([
      `ClusterRole/${name}-metrics-auth`,
      `ClusterRoleBinding/${name}-metrics-auth`,
      `ClusterRole/${name}-metrics-reader`,
      `Service/${name}-metrics`,
      `ServiceMonitor/${name}-metrics`,
    ]),
  );
  await env.plane.applyObjects(rest, { dryRun: true });
}, 120_000);
