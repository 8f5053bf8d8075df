/**
 * writeStatus on a real apiserver: a status computed from a copy older than the object's last
 * write is refused (409) instead of putting the older status back, and a write from the current
 * copy lands. (Under load a reconcile may read a cached copy that predates its own last write.)
 */
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, isConflict, realClock } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { type VCDMachine, type VCDMachineStatus, VCDMachineType } from '../src/index.js';
import { writeStatus } from '../src/status.js';

const env = useControlPlane('capvcd-status-write');
const crdFile = fileURLToPath(new URL('../deploy/crds.yaml', import.meta.url));
let client: Client;

beforeAll(async () => {
  await env.plane.installCRDs([crdFile]);
  client = new Client(new HttpTransport(env.kubeConfig));
});

const condition = (reason: string, status: 'True' | 'False') => ({
  type: 'Ready',
  status,
  reason,
  message: '',
  lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
});

describe('writeStatus', () => {
  it('refuses a status computed from a stale copy, so a newer status is never overwritten', async () => {
    const key = { namespace: env.namespace, name: 'm1' };
    const stale = await client.create(VCDMachineType, {
      metadata: key,
      spec: { catalog: 'templates', template: 'ubuntu' },
    } as VCDMachine);
    const provisioned: VCDMachineStatus = {
      initialization: { provisioned: true },
      conditions: [condition('Provisioned', 'True')],
    };
    expect(await writeStatus(client, VCDMachineType, stale, provisioned, realClock)).toBe(true);

    // The same decision from the copy read before that write: refused, the newer status stays.
    const busy: VCDMachineStatus = { conditions: [condition('VMBusy', 'False')] };
    const err = await writeStatus(client, VCDMachineType, stale, busy, realClock).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isConflict(err), String(err)).toBe(true);
    const now = await client.get(VCDMachineType, key);
    expect(now.status?.initialization?.provisioned).toBe(true);
    expect(now.status?.conditions?.map((c) => c.reason)).toEqual(['Provisioned']);

    // From the current copy the write lands.
    expect(await writeStatus(client, VCDMachineType, now, busy, realClock)).toBe(true);
    const after = await client.get(VCDMachineType, key);
    expect(after.status?.conditions?.map((c) => c.reason)).toEqual(['VMBusy']);
  });
});
