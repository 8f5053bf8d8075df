/**
 * A controller that owns a Deployment, a Service, a Job and a PersistentVolumeClaim, written with
 * the generated types only: no cast, no `unknown`, every field checked by tsc. The
 * `@ts-expect-error` lines are the other half: `tsc -p tsconfig.tests.json` (npm run lint) fails
 * if a misspelled field or a value outside an enum were accepted.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplyConfiguration } from '../../src/api/apply-configuration.js';
import { Deployment } from '../../src/api/generated/apps/v1.js';
import { Job } from '../../src/api/generated/batch/v1.js';
import { type ConfigMap, PersistentVolumeClaim, Service } from '../../src/api/generated/core/v1.js';
import type { Role } from '../../src/api/generated/rbac/v1.js';
import { InformerCache } from '../../src/cache/index.js';
import { Client } from '../../src/client/index.js';
import { type Controller, ControllerBuilder } from '../../src/controller/index.js';
import { setControllerReference } from '../../src/helpers/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { Widget, widget } from '../testing/fixtures.js';

const labels = { app: 'web' };

function deployment(name: string, namespace: string): Deployment {
  return {
    metadata: { name, namespace },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.27',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ containerPort: 8080, protocol: 'TCP' }],
              resources: { requests: { cpu: '100m', memory: '64Mi' } },
            },
          ],
        },
      },
    },
  };
}

function service(name: string, namespace: string): Service {
  return {
    metadata: { name, namespace },
    spec: { type: 'ClusterIP', selector: labels, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

function job(name: string, namespace: string): Job {
  return {
    metadata: { name, namespace },
    spec: {
      backoffLimit: 3,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'migrate', image: 'busybox' }] } },
    },
  };
}

function claim(name: string, namespace: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

// What tsc must refuse: one misspelled field in each kind, and a value outside an enum.
// @ts-expect-error `replica` is not a DeploymentSpec field (`replicas` is)
export const badDeployment: Deployment = { metadata: {}, spec: { replica: 2, selector: {}, template: {} } };
// @ts-expect-error `selecter` is not a ServiceSpec field
export const badService: Service = { metadata: {}, spec: { selecter: labels } };
// @ts-expect-error `backoffLimt` is not a JobSpec field
export const badJob: Job = { metadata: {}, spec: { backoffLimt: 1, template: {} } };
// @ts-expect-error `accesModes` is not a PersistentVolumeClaimSpec field
export const badClaim: PersistentVolumeClaim = { metadata: {}, spec: { accesModes: ['ReadWriteOnce'] } };
// @ts-expect-error `spce` is not a Deployment field: the top level is checked as well
export const badTopLevel: Deployment = { metadata: {}, spce: { selector: {}, template: {} } };
// @ts-expect-error `dta` is not a ConfigMap field
export const badConfigMap: ConfigMap = { metadata: {}, dta: { key: 'value' } };
export const badPolicy: Job = {
  metadata: {},
  // @ts-expect-error 'Sometimes' is not a RestartPolicy
  spec: { template: { spec: { restartPolicy: 'Sometimes', containers: [] } } },
};
// An atomic list (no merge key) is replaced whole: its elements keep their required fields.
export const partialRule: ApplyConfiguration<Role> = {
  metadata: { name: 'r' },
  // @ts-expect-error a PolicyRule needs its verbs
  rules: [{ resources: ['pods'] }],
};
export const noKey: ApplyConfiguration<Deployment> = {
  metadata: { name: 'w' },
  // @ts-expect-error an apply configuration's container needs its merge key, `name`
  spec: { template: { spec: { containers: [{ image: 'x' }] } } },
};

const running: Array<{ cache: InformerCache; controller: Controller }> = [];
afterEach(async () => {
  for (const { cache, controller } of running.splice(0)) {
    await controller.stop();
    await cache.stop();
  }
});

describe('typed built-in kinds', () => {
  it('a controller owns a Deployment, a Service, a Job and a PVC, all typed', async () => {
    const clock = new ManualClock();
    const kinds = [Widget, Deployment, Service, Job, PersistentVolumeClaim];
    const cluster = new FakeCluster({ clock, kinds });
    const client = new Client(cluster, { fieldManager: 'typed-test' });
    const cache = new InformerCache(cluster, { clock, onError: () => {} });
    const builder = new ControllerBuilder(cache, { logger: pino({ level: 'silent' }), clock });
    const controller = builder
      .for(Widget)
      .owns(Deployment)
      .owns(Service)
      .owns(Job)
      .owns(PersistentVolumeClaim)
      .build(async ({ namespace = 'default', name }) => {
        const owner = await client.get(Widget, { namespace, name });
        await client.create(Deployment, setControllerReference(Widget, owner, deployment(name, namespace)));
        await client.create(Service, setControllerReference(Widget, owner, service(name, namespace)));
        await client.create(Job, setControllerReference(Widget, owner, job(name, namespace)));
        await client.create(
          PersistentVolumeClaim,
          setControllerReference(Widget, owner, claim(name, namespace)),
        );
        return undefined;
      });
    cluster.seed(Widget, widget('w1'));
    cache.start();
    void controller.start();
    running.push({ cache, controller });
    for (let i = 0; i < 20; i++) await clock.advanceAsync(1);

    const key = { namespace: 'default', name: 'w1' };
    const written = await client.get(Deployment, key);
    // Read back through the same types: fields deep in the spec, no cast.
    expect(written.spec?.template.spec?.containers[0]?.image).toBe('nginx:1.27');
    expect(written.metadata.ownerReferences?.[0]?.kind).toBe('Widget');
    expect((await client.get(Service, key)).spec?.ports?.[0]?.targetPort).toBe(8080);
    expect((await client.get(Job, key)).spec?.template.spec?.restartPolicy).toBe('Never');
    expect((await client.get(PersistentVolumeClaim, key)).spec?.resources?.requests?.storage).toBe('1Gi');

    // An apply configuration names one field deep in the spec, and the container's key.
    const image: ApplyConfiguration<Deployment> = {
      metadata: { name: 'w1', namespace: 'default' },
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
    };
    const applied = await client.apply(Deployment, image);
    expect(applied.spec?.template.spec?.containers.map((c) => c.image)).toEqual(['nginx:1.28']);
  });
});
