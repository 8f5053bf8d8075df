/**
 * The Greeting controller's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring,
 * and run under a ServiceAccount bound to exactly those rules (envtest), the controller is never
 * refused and uses every rule.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { auditUnderRbac, readManifests, WebhookServingCert } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, type RbacWiringOptions } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { GREETING_RBAC, GreetingType, rbacWiring } from '../src/index.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useControlPlane('greeting-rbac');

describe('the Greeting controller RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w examples/greeting`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../src/rbac.ts', import.meta.url)),
      ...GREETING_RBAC,
      output: rbacFile,
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w examples/greeting',
    });
    expect(outcome).toBe('unchanged');
  });

  it('lets the controller do all it does under its ServiceAccount, and grants nothing it does not use', async () => {
    await env.plane.installCRDs([fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url))]);
    const cert = await WebhookServingCert.create();
    const operator = {
      ...GREETING_RBAC,
      rbac: readManifests(rbacFile),
      wiring: (options: RbacWiringOptions) =>
        rbacWiring({ ...options, webhook: { port: 0, host: '127.0.0.1', certDir: cert.certDir } }),
      justified: {
        // The manager creates its Lease only when none exists; a plane shared by tests may have one.
        'create coordination.k8s.io/leases': 'the Lease is created once, by the first leader',
      },
    };
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const key = { namespace: env.namespace, name: 'audited' };
    const audit = await auditUnderRbac(env.plane, operator, async () => {
      await admin.create(GreetingType, { metadata: key, spec: { message: 'Hi', recipients: ['Ada'] } });
      const cmKey = { namespace: env.namespace, name: 'audited-greeting' };
      await eventually(() => admin.get(ConfigMap, cmKey), { timeoutMs: 20_000 });
      // A changed spec updates the ConfigMap; the status patch follows each.
      await admin.patch(GreetingType, key, 'merge', { spec: { recipients: ['Ada', 'Linus'] } });
      await eventually(
        async () =>
          (await admin.get(ConfigMap, cmKey)).data?.greeting?.includes('Linus') ? true : undefined,
        { timeoutMs: 20_000 },
      );
      await eventually(
        async () =>
          (await admin.get(GreetingType, key)).status?.observedGeneration === 2 ? true : undefined,
        { timeoutMs: 20_000 },
      );
    }).finally(() => cert.remove());
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 60_000);
});
