/**
 * A whole simulated cluster: kube-scheduler binds pods, kwok runs them on its Nodes, the workload
 * controllers of kube-controller-manager do the rest. Every decision here is made by the real
 * components, not by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, readyStatus } from '../src/index.js';
import { pollUntil } from '../src/wait.js';

let plane: ControlPlane;
let nodes: string[];
const ns = 'sim';

interface PodJson {
  metadata: { name: string; ownerReferences?: Array<{ kind: string }> };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}
interface NodeJson {
  metadata: { name: string };
  status: { nodeInfo: { bootID: string }; conditions?: Array<{ type: string; status: string }> };
}

const get = async <T>(path: string): Promise<T> => {
  const answer = await plane.request('GET', path);
  if (answer.status !== 200) throw new Error(`GET ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body as T;
};
const create = async (path: string, body: unknown) => {
  const answer = await plane.request('POST', path, body);
  if (answer.status !== 201) throw new Error(`POST ${path}: ${JSON.stringify(answer.body)}`);
};
const pods = async (selector: string) =>
  (await get<{ items: PodJson[] }>(`/api/v1/namespaces/${ns}/pods?labelSelector=${selector}`)).items;
const running = (p: PodJson) =>
  p.status.phase === 'Running' && p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
const node = (name: string) => get<NodeJson>(`/api/v1/nodes/${name}`);
const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image: 'registry.invalid/app:1' }], terminationGracePeriodSeconds: 1 },
});

beforeAll(async () => {
  plane = await ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true });
  await create('/api/v1/namespaces', { metadata: { name: ns } });
});
afterAll(async () => {
  await plane?.stop();
});

describe('kwok nodes with kube-scheduler', () => {
  it('3 nodes become Ready within seconds, each with its own boot ID and a Lease', async () => {
    const started = Date.now();
    nodes = await plane.addNodes(3);
    expect(Date.now() - started).toBeLessThan(10_000);
    const objects = await Promise.all(nodes.map(node));
    for (const n of objects) expect(readyStatus(n)).toBe('True');
    expect(new Set(objects.map((n) => n.status.nodeInfo.bootID)).size).toBe(3);
    const leases = await pollUntil('node leases', 20_000, async () => {
      const list = await get<{ items: Array<{ metadata: { name: string } }> }>(
        '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
      );
      const names = list.items.map((l) => l.metadata.name);
      return nodes.every((n) => names.includes(n)) ? names : undefined;
    });
    expect(leases).toEqual(expect.arrayContaining(nodes));
  });

  it('a 6-replica Deployment becomes Available, its pods spread over the nodes', async () => {
    await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      metadata: { name: 'web' },
      spec: {
        replicas: 6,
        selector: { matchLabels: { app: 'web' } },
        template: {
          ...template('web'),
          spec: {
            ...template('web').spec,
            topologySpreadConstraints: [
              {
                maxSkew: 1,
                topologyKey: 'kubernetes.io/hostname',
                whenUnsatisfiable: 'DoNotSchedule',
                labelSelector: { matchLabels: { app: 'web' } },
              },
            ],
          },
        },
      },
    });
    await pollUntil('Deployment web Available with 6 ready', 60_000, async () => {
      const d = await get<{
        status?: { readyReplicas?: number; conditions?: Array<{ type: string; status: string }> };
      }>(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
      const available = d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True');
      return available && d.status?.readyReplicas === 6 ? true : undefined;
    });
    const web = await pods('app%3Dweb');
    expect(web.filter(running)).toHaveLength(6);
    const perNode = nodes.map((n) => web.filter((p) => p.spec.nodeName === n).length);
    expect(perNode).toEqual([2, 2, 2]);
  });

  it('a DaemonSet runs one pod on every node', async () => {
    await create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') },
    });
    const ds = await pollUntil('a Running agent pod on every node', 60_000, async () => {
      const list = (await pods('app%3Dagent')).filter(running);
      return list.length === 3 ? list : undefined;
    });
    expect(ds.map((p) => p.spec.nodeName).sort()).toEqual([...nodes].sort());
  });

  it('an eviction that would break a PodDisruptionBudget answers 429; one within it is granted', async () => {
    await create(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
      metadata: { name: 'web' },
      spec: { minAvailable: 5, selector: { matchLabels: { app: 'web' } } },
    });
    await pollUntil('the PDB to allow 1 disruption', 30_000, async () => {
      const pdb = await get<{ status?: { disruptionsAllowed?: number; currentHealthy?: number } }>(
        `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`,
      );
      return pdb.status?.currentHealthy === 6 && pdb.status.disruptionsAllowed === 1 ? true : undefined;
    });
    const [first, second] = (await pods('app%3Dweb')).filter(running) as [PodJson, PodJson];
    const evict = (pod: PodJson) =>
      plane.request('POST', `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/eviction`, {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod.metadata.name, namespace: ns },
      });
    expect((await evict(first)).status).toBe(201);
    const refused = await evict(second);
    expect(refused.status).toBe(429);
    expect(JSON.stringify(refused.body)).toMatch(/disruption budget/);
    // The replacement is scheduled and run by kwok: the Deployment is whole again.
    await pollUntil('6 web pods running again', 60_000, async () =>
      (await pods('app%3Dweb')).filter((p) => running(p) && p.metadata.name !== first.metadata.name)
        .length === 6
        ? true
        : undefined,
    );
  });

  it('rebootNode: NotReady, then Ready with a new boot ID, and its pods run again', async () => {
    const name = nodes[0] as string;
    const before = await node(name);
    const onNode = (await pods('app%3Dagent')).filter((p) => p.spec.nodeName === name);
    expect(onNode).toHaveLength(1);
    // The Ready statuses the node went through, each change once. A flag (not a marker in `seen`)
    // stops the watcher, after one last read begun once the reboot is over: a marker would be
    // followed by whatever a GET in flight answered, and the loop would never see it again.
    const seen: string[] = [];
    let rebooted = false;
    const watching = (async () => {
      for (;;) {
        const last = rebooted;
        const status = readyStatus(await node(name)) ?? 'none';
        if (seen.at(-1) !== status) seen.push(status);
        if (last) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const asked = Date.now();
    const bootID = await plane.rebootNode(name, { downMs: 1_000 }).finally(() => {
      rebooted = true;
    });
    // Down for downMs from the moment it was taken down, then back: never shorter.
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1_000);
    await watching;
    expect(seen).toEqual(['True', 'False', 'True']);
    const after = await node(name);
    expect(after.status.nodeInfo.bootID).toBe(bootID);
    expect(bootID).not.toBe(before.status.nodeInfo.bootID);
    const agent = (await pods('app%3Dagent')).find((p) => p.metadata.name === onNode[0]?.metadata.name);
    expect(agent && running(agent)).toBe(true);
  });

  it('failNode keeps the node NotReady (Unknown) and its pods not ready until healed', async () => {
    const name = nodes[1] as string;
    const bootID = (await node(name)).status.nodeInfo.bootID;
    await plane.failNode(name);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(readyStatus(await node(name))).toBe('Unknown');
    const agent = (await pods('app%3Dagent')).find((p) => p.spec.nodeName === name) as PodJson;
    expect(running(agent)).toBe(false);
    await plane.healNode(name);
    const healed = await node(name);
    expect(readyStatus(healed)).toBe('True');
    expect(healed.status.nodeInfo.bootID).toBe(bootID);
    const back = (await pods('app%3Dagent')).find((p) => p.spec.nodeName === name) as PodJson;
    expect(running(back)).toBe(true);
  });
});
