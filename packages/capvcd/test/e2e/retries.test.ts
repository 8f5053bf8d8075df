/**
 * VCD errors under real Cluster API on envtest with vcdsim's fault injection: 5xx and 429 answers
 * are retried per object on the runtime's exponential curve (never a burst), the curve starts over
 * once the object gets through; no load-balancer DELETE is sent twice; `TLSVerified` says how the
 * last handshake went, not what the spec asks for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conditions, VCDClusterType } from '../../src/index.js';
import { Harness, SCALED_TIMINGS } from './harness.js';

const ns = 'e2e-retries';
const curve = { initialMs: 400, maxMs: 8_000 };
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 300 });
  await h.prepareCluster('r1');
  await h.prepareCluster('r2', { caInSecret: false });
  await h.startProvider({ ...SCALED_TIMINGS, vcdErrorBackoff: curve });
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const POOLS = '/cloudapi/1.0.0/loadBalancer/pools';
const SERVICES = '/cloudapi/1.0.0/loadBalancer/virtualServices';
/** Times of the requests to `route` with `method`, and their statuses. */
const calls = (method: string, route: string) =>
  h.sim.inspect.requests().filter((r) => r.method === method && r.route === route);
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));
const conditionOf = async (name: string, type: string) =>
  (await h.client.get(VCDClusterType, { namespace: ns, name })).status?.conditions?.find(
    (c) => c.type === type,
  );

describe('VCD errors', () => {
  it('5xx and 429 answers are retried on the exponential curve, started over per success', async () => {
    h.sim.faults.httpErrors(503, 4, { method: 'POST', path: POOLS });
    h.sim.faults.httpErrors(429, 2, { method: 'POST', path: SERVICES });
    await h.plane.createObjects(h.clusterObjects('r1'));
    await h.wait('the VCDCluster provisioned', async () =>
      (await h.client.get(VCDClusterType, { namespace: ns, name: 'r1' })).status?.initialization?.provisioned
        ? true
        : undefined,
    );
    const pools = calls('POST', POOLS);
    expect(pools.map((r) => r.status)).toEqual([503, 503, 503, 503, 202]);
    // The n-th error in a row waits initialMs × 2^n (less 10 % for timer and request jitter).
    const poolGaps = gaps(pools.map((r) => r.at));
    poolGaps.forEach((gap, n) => {
      expect(gap).toBeGreaterThanOrEqual(curve.initialMs * 2 ** n * 0.9);
    });
    // The pool's success started the curve over: the virtual service's first wait is the first step again.
    const services = calls('POST', SERVICES);
    expect(services.map((r) => r.status)).toEqual([429, 429, 202]);
    const serviceGaps = gaps(services.map((r) => r.at));
    expect(serviceGaps[0]).toBeGreaterThanOrEqual(curve.initialMs * 0.9);
    expect(serviceGaps[0]).toBeLessThan(curve.initialMs * 4);
    expect(serviceGaps[1]).toBeGreaterThanOrEqual(curve.initialMs * 2 * 0.9);
  }, 180_000);

  it('TLSVerified is True after a verified handshake', async () => {
    const tls = await conditionOf('r1', Conditions.TLSVerified);
    expect(tls?.status).toBe('True');
    expect(tls?.reason).toBe('Verified');
  });

  it('TLSVerified is False with the TLS error when the site’s certificate fails verification', async () => {
    // r2's Secret has no ca.crt and the provider no --vcd-ca-bundle: the system roots refuse vcdsim's CA.
    await h.plane.createObjects(h.clusterObjects('r2'));
    const tls = await h.wait('TLSVerified False', async () => {
      const c = await conditionOf('r2', Conditions.TLSVerified);
      return c?.status === 'False' ? c : undefined;
    });
    expect(tls.reason).toBe('HandshakeFailed');
    expect(tls.message).toMatch(/CERT|certificate/);
    const ready = await conditionOf('r2', Conditions.Ready);
    expect(ready?.status).toBe('False');
  }, 120_000);

  it('deleting sends one DELETE per virtual service and pool, however slow the tasks', async () => {
    const before = {
      services: calls('DELETE', `${SERVICES}/{id}`).length,
      pools: calls('DELETE', `${POOLS}/{id}`).length,
    };
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/r1`);
    await h.wait(
      'the VCDCluster gone',
      async () =>
        (await h.client.list(VCDClusterType, { namespace: ns })).items.some((c) => c.metadata.name === 'r1')
          ? undefined
          : true,
      120_000,
    );
    expect(calls('DELETE', `${SERVICES}/{id}`).length - before.services).toBe(1);
    expect(calls('DELETE', `${POOLS}/{id}`).length - before.pools).toBe(1);
    expect(h.vcdObjects().virtualServices).toEqual([]);
  }, 180_000);
});
