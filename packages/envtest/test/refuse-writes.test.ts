/** refuseWrites on the real apiserver: in force when it returns, only for what it names, lifted by its answer. */
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { refuseWrites } from '../src/index.js';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-refuse');
const MESSAGE = 'the frozen ConfigMap stays as it is';

/** An update of ConfigMap `name` (a dry run unless `dryRun` is false): resolves or rejects as the server answers. */
async function update(name: string, dryRun = true): Promise<V1ConfigMap> {
  const api = env.kubeConfig.makeApiClient(CoreV1Api);
  const namespace = env.namespace;
  const current = await api.readNamespacedConfigMap({ namespace, name });
  return api.replaceNamespacedConfigMap({
    namespace,
    name,
    body: { ...current, data: { k: `${Date.now()}` } },
    ...(dryRun ? { dryRun: 'All' } : {}),
  });
}

/** The refusal of updates to this file's ConfigMap `frozen`. */
const frozen = (name: string, probe: () => Promise<unknown>, timeoutMs?: number) =>
  refuseWrites(env.plane, {
    name,
    resourceRules: [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] },
    ],
    // Only this file's namespace: the policy is cluster-wide and the plane is shared.
    matchConditions: [
      { name: 'this-namespace', expression: `object.metadata.namespace == '${env.namespace}'` },
    ],
    expression: "object.metadata.name != 'frozen'",
    message: MESSAGE,
    probe,
    ...(timeoutMs ? { timeoutMs } : {}),
  });

const policyStatus = async (name: string) =>
  (
    await env.plane.request(
      'GET',
      `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${name}`,
    )
  ).status;

describe('refuseWrites', () => {
  it('refuses what it names from its return on, admits the rest, and is lifted by the function it answers', async () => {
    const api = env.kubeConfig.makeApiClient(CoreV1Api);
    for (const name of ['frozen', 'free'])
      await api.createNamespacedConfigMap({
        namespace: env.namespace,
        body: { metadata: { name }, data: { k: '0' } },
      });
    const lift = await frozen(`refuse-${env.namespace}`, () => update('frozen'));

    // In force at once: a real (not dry-run) update is refused with the policy's message.
    const refused = await update('frozen', false).then(
      () => undefined,
      (err: { code?: number; message?: string }) => err,
    );
    expect(refused?.code).toBe(403);
    expect(refused?.message).toContain(MESSAGE);
    // What the expression lets through still goes through.
    expect((await update('free', false)).data?.k).toMatch(/^\d+$/);
    expect(await policyStatus(`refuse-${env.namespace}`)).toBe(200);

    await lift();
    expect(await policyStatus(`refuse-${env.namespace}`)).toBe(404);
    // The admission plugin drops the policy through its informer: allow it a moment.
    let admitted: V1ConfigMap | undefined;
    for (let i = 0; i < 100 && !admitted; i++) {
      admitted = await update('frozen', false).catch(() => undefined);
      if (!admitted) await new Promise((r) => setTimeout(r, 100));
    }
    expect(admitted?.metadata?.name).toBe('frozen');
    // Lifting twice (a test's cleanup after the test lifted it) is harmless.
    await expect(lift()).resolves.toBeUndefined();
  });

  it('fails, saying what the probe got, and leaves nothing behind when the probe is never refused', async () => {
    const name = `refuse-${env.namespace}-never`;
    const api = env.kubeConfig.makeApiClient(CoreV1Api);
    await api.createNamespacedConfigMap({ namespace: env.namespace, body: { metadata: { name: 'other' } } });
    // The probe writes a ConfigMap the policy does not refuse: the refusal never shows.
    await expect(frozen(name, () => update('other'), 2_000)).rejects.toThrow(
      `the refusal ${name} in force: not within 2000 ms; the last probe: it was admitted`,
    );
    expect(await policyStatus(name)).toBe(404);
  });
});
