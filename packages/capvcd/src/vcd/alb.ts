/**
 * NSX-T Advanced Load Balancer calls (CloudAPI JSON): the edge gateway behind the cluster's
 * network, free uplink addresses, pools with a TCP health monitor, virtual services, their
 * health. Pools and virtual services are found by name, so a lost status never makes a second one.
 */
import type { Task, VcdClient } from './client.js';
import { VcdError } from './errors.js';
import { type Page, q } from './page.js';

interface Ref {
  id: string;
  name?: string;
}

/** A pool as read. */
export interface PoolRecord {
  id: string;
  name: string;
  members: string[];
  raw: Record<string, unknown>;
}

/** A virtual service as its summary reports it. */
export interface VirtualServiceRecord {
  id: string;
  vip: string;
  health: string;
}

const ALB = '/cloudapi/1.0.0/loadBalancer';

/** The edge gateway the org VDC network routes through. */
export async function edgeGatewayOf(vcd: VcdClient, network: string): Promise<Ref> {
  const { body } = await vcd.json<Page<{ name: string; connection?: { routerRef?: Ref } }>>(
    'GET',
    `/cloudapi/1.0.0/orgVdcNetworks?${q(`name==${network}`)}`,
  );
  const router = body?.values?.find((n) => n.name === network)?.connection?.routerRef;
  if (!router?.id)
    throw new VcdError(404, 'NOT_FOUND', `network ${network} is not routed through an edge gateway`);
  return router;
}

/** The service engine group assigned to the gateway with room for one more virtual service. */
export async function serviceEngineGroupOf(vcd: VcdClient, gateway: string): Promise<Ref> {
  const { body } = await vcd.json<
    Page<{ serviceEngineGroupRef: Ref; maxVirtualServices?: number; numDeployedVirtualServices?: number }>
  >('GET', `${ALB}/serviceEngineGroups/assignments?${q(`gatewayRef.id==${gateway}`)}`);
  const seg = body?.values?.find(
    (a) => a.maxVirtualServices === undefined || (a.numDeployedVirtualServices ?? 0) < a.maxVirtualServices,
  );
  if (!seg)
    throw new VcdError(
      400,
      'NO_SERVICE_ENGINE_GROUP',
      'no service engine group with room on the edge gateway',
    );
  return seg.serviceEngineGroupRef;
}

/** A pool by name on the gateway (one summary lookup, one GET), or undefined. */
export async function findPool(
  vcd: VcdClient,
  gateway: string,
  name: string,
): Promise<PoolRecord | undefined> {
  const { body } = await vcd.json<Page<{ id: string; name: string }>>(
    'GET',
    `/cloudapi/1.0.0/edgeGateways/${gateway}/loadBalancer/poolSummaries?${q(`name==${name}`)}`,
  );
  const summary = body?.values?.find((p) => p.name === name);
  return summary ? getPool(vcd, summary.id) : undefined;
}

/** A pool by id. */
export async function getPool(vcd: VcdClient, id: string): Promise<PoolRecord> {
  const { body } = await vcd.json<Record<string, unknown>>('GET', `${ALB}/pools/${id}`);
  const members = ((body.members as Array<{ ipAddress: string }> | undefined) ?? []).map((m) => m.ipAddress);
  return { id: String(body.id), name: String(body.name), members, raw: body };
}

/** A virtual service by name on the gateway, or undefined. */
export async function findVirtualService(
  vcd: VcdClient,
  gateway: string,
  name: string,
): Promise<VirtualServiceRecord | undefined> {
  const { body } = await vcd.json<
    Page<{ id: string; name: string; virtualIpAddress: string; healthStatus?: string }>
  >(
    'GET',
    `/cloudapi/1.0.0/edgeGateways/${gateway}/loadBalancer/virtualServiceSummaries?${q(`name==${name}`)}`,
  );
  const vs = body?.values?.find((v) => v.name === name);
  return vs ? { id: vs.id, vip: vs.virtualIpAddress, health: vs.healthStatus ?? 'UNKNOWN' } : undefined;
}

const toNumber = (ip: string) => ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
const toIp = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** The lowest uplink address no one uses (inside `subnet` when given), or undefined when none is left. */
export async function freeUplinkAddress(
  vcd: VcdClient,
  gateway: string,
  subnet?: string,
): Promise<string | undefined> {
  const { body: gw } = await vcd.json<{
    edgeGatewayUplinks?: Array<{
      subnets?: {
        values?: Array<{ ipRanges?: { values?: Array<{ startAddress: string; endAddress: string }> } }>;
      };
    }>;
  }>('GET', `/cloudapi/1.0.0/edgeGateways/${gateway}`);
  const used = new Set<string>();
  for (let page = 1; ; page++) {
    const { body } = await vcd.json<Page<{ ipAddress: string }>>(
      'GET',
      `/cloudapi/1.0.0/edgeGateways/${gateway}/usedIpAddresses?page=${page}&pageSize=128`,
    );
    for (const u of body?.values ?? []) used.add(u.ipAddress);
    if (!body?.pageCount || page >= body.pageCount) break;
  }
  const [net, bits] = subnet ? subnet.split('/') : [];
  const inSubnet = (n: number) =>
    !net || Math.floor(n / 2 ** (32 - Number(bits))) === Math.floor(toNumber(net) / 2 ** (32 - Number(bits)));
  for (const uplink of gw?.edgeGatewayUplinks ?? []) {
    for (const s of uplink.subnets?.values ?? []) {
      for (const r of s.ipRanges?.values ?? []) {
        for (let n = toNumber(r.startAddress); n <= toNumber(r.endAddress); n++) {
          if (inSubnet(n) && !used.has(toIp(n))) return toIp(n);
        }
      }
    }
  }
  return undefined;
}

/** Creates the pool (no members yet; a TCP health monitor; no graceful disable wait, #516). */
export function createPool(vcd: VcdClient, gateway: Ref, name: string, port: number): Promise<Task> {
  return vcd.startJsonTask('POST', `${ALB}/pools`, {
    name,
    enabled: true,
    defaultPort: port,
    members: [],
    gatewayRef: gateway,
    gracefulTimeoutPeriod: 0,
    algorithm: 'ROUND_ROBIN',
    healthMonitors: [{ type: 'TCP' }],
    passiveMonitoringEnabled: true,
  });
}

/** Sets the pool's members (the whole pool is sent back, as CloudAPI expects). */
export function setPoolMembers(
  vcd: VcdClient,
  pool: PoolRecord,
  members: string[],
  port: number,
): Promise<Task> {
  return vcd.startJsonTask('PUT', `${ALB}/pools/${pool.id}`, {
    ...pool.raw,
    members: members.map((ipAddress) => ({ ipAddress, port, ratio: 1, enabled: true })),
  });
}

/** Creates the L4 virtual service on `vip`, in front of the pool. */
export function createVirtualService(
  vcd: VcdClient,
  v: { name: string; gateway: Ref; seg: Ref; pool: Ref; vip: string; port: number },
): Promise<Task> {
  return vcd.startJsonTask('POST', `${ALB}/virtualServices`, {
    name: v.name,
    enabled: true,
    virtualIpAddress: v.vip,
    loadBalancerPoolRef: v.pool,
    gatewayRef: v.gateway,
    serviceEngineGroupRef: v.seg,
    servicePorts: [
      {
        portStart: v.port,
        portEnd: v.port,
        sslEnabled: false,
        tcpUdpProfile: { type: 'TCP_PROXY', systemDefined: true },
      },
    ],
    applicationProfile: { name: 'System-L4-Application', type: 'L4', systemDefined: true },
  });
}

export const deleteVirtualService = (vcd: VcdClient, id: string) =>
  vcd.startJsonTask('DELETE', `${ALB}/virtualServices/${id}`);
export const deletePool = (vcd: VcdClient, id: string) => vcd.startJsonTask('DELETE', `${ALB}/pools/${id}`);
