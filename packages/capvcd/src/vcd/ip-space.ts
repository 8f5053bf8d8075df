/**
 * IP Space calls (CloudAPI, VCD 10.4.1+) for an edge gateway that allocates from IP Spaces
 * (`usingIpSpace`): its VIPs are floating IPs the org reserves (`…/allocate`, a task whose result
 * holds the address), finds again by value, and releases.
 */
import type { Task, VcdClient } from './client.js';
import { VcdError } from './errors.js';
import { type Page, q } from './page.js';

const IP_SPACES = '/cloudapi/1.0.0/ipSpaces';

/** A floating IP reservation, by its IP Space. */
export interface FloatingIp {
  ipSpaceId: string;
  allocationId: string;
}

/** Whether the edge gateway allocates from IP Spaces rather than its uplink's ranges. */
export async function usesIpSpaces(vcd: VcdClient, gateway: string): Promise<boolean> {
  const { body } = await vcd.json<{ edgeGatewayUplinks?: Array<{ usingIpSpace?: boolean }> }>(
    'GET',
    `/cloudapi/1.0.0/edgeGateways/${gateway}`,
  );
  return (body?.edgeGatewayUplinks ?? []).some((u) => u.usingIpSpace === true);
}

/** The IP Spaces the gateway allocates from (those VCD suggests floating IPs of, in its order). */
export async function ipSpacesOf(vcd: VcdClient, gateway: string): Promise<string[]> {
  const { body } = await vcd.json<Page<{ ipSpaceRef: { id: string } }>>(
    'GET',
    `${IP_SPACES}/floatingIpSuggestions?${q(`gatewayId==${gateway}`)}`,
  );
  return (body?.values ?? []).map((s) => s.ipSpaceRef.id);
}

/** Reserves one floating IP in the IP Space; the task's result names it (see {@link reservedAddress}). */
export function reserveFloatingIp(vcd: VcdClient, ipSpaceId: string): Promise<Task> {
  return vcd.startJsonTask('POST', `${IP_SPACES}/${ipSpaceId}/allocate`, {
    type: 'FLOATING_IP',
    quantity: 1,
  });
}

/** The address a finished reservation task returned (`[{id, value}]` as JSON), if it names one. */
export function reservedAddress(result: string | undefined): string | undefined {
  if (!result) return undefined;
  try {
    const parsed = JSON.parse(result) as unknown;
    const first = Array.isArray(parsed) ? (parsed[0] as { value?: unknown } | undefined) : undefined;
    return typeof first?.value === 'string' && first.value !== '' ? first.value : undefined;
  } catch {
    return undefined;
  }
}

/** The org's reservation of `ip` as a floating IP in one of the IP Spaces, if any. */
export async function findFloatingIp(
  vcd: VcdClient,
  ipSpaceIds: string[],
  ip: string,
): Promise<FloatingIp | undefined> {
  for (const ipSpaceId of ipSpaceIds) {
    const { body } = await vcd.json<Page<{ id: string; value: string }>>(
      'GET',
      `${IP_SPACES}/${ipSpaceId}/allocations?${q(`type==FLOATING_IP;value==${ip}`)}`,
    );
    const a = body?.values?.find((v) => v.value === ip);
    if (a) return { ipSpaceId, allocationId: a.id };
  }
  return undefined;
}

/** Releases a floating IP reservation (VCD refuses while a service still uses it). */
export function releaseFloatingIp(vcd: VcdClient, ip: FloatingIp): Promise<Task> {
  return vcd.startJsonTask('DELETE', `${IP_SPACES}/${ip.ipSpaceId}/allocations/${ip.allocationId}`);
}

/** The first IP Space of the gateway, or NO_IP_SPACE when VCD suggests none. */
export function firstIpSpace(ids: string[], gatewayName: string): string {
  if (!ids[0])
    throw new VcdError(
      400,
      'NO_IP_SPACE',
      `edge gateway ${gatewayName} uses IP Spaces but none is assigned to the org`,
    );
  return ids[0];
}
