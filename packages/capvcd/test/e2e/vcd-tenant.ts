/**
 * A tenant user acting in Cloud Director behind capvcd's back (as in its UI): a session of its own,
 * then VCD's own calls on a VM, each task waited for until vcdsim shows its effect.
 */
import { callSim } from '@capstan/vcdsim';
import type { Harness } from './harness.js';

const XML = 'application/*+xml;version=37.2';

/** Logs in as vcdsim's tenant user and returns a caller of VCD's API with that session. */
async function tenantUser(h: Harness) {
  const endpoint = { url: h.sim.url, caPem: h.sim.caPem };
  const login = await callSim(endpoint, 'POST', '/cloudapi/1.0.0/sessions', {
    headers: {
      Accept: 'application/*;version=37.2',
      Authorization: `Basic ${Buffer.from('alice@tenant-a:alice-password').toString('base64')}`,
    },
  });
  if (login.status !== 200) throw new Error(`login to vcdsim: ${login.status} ${login.text}`);
  const token = String(login.headers['x-vmware-vcloud-access-token']);
  return async (method: string, path: string): Promise<void> => {
    const answer = await callSim(endpoint, method, path, {
      headers: { Accept: XML, Authorization: `Bearer ${token}` },
    });
    if (answer.status !== 202) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
  };
}

const vmOf = (h: Harness, vmName: string) => {
  const vm = h.sim.inspect.vm(vmName);
  if (!vm) throw new Error(`vcdsim has no VM ${vmName}`);
  return vm;
};

/** Powers a VM off (`power/action/powerOff`), waited for until VCD reports it off. */
export async function powerOffInVcd(h: Harness, vmName: string): Promise<void> {
  const vm = vmOf(h, vmName);
  await (await tenantUser(h))('POST', `/api/vApp/vm-${vm.id}/power/action/powerOff`);
  await h.wait(`VM ${vmName} powered off`, async () =>
    h.sim.inspect.vm(vmName)?.status === 8 ? true : undefined,
  );
}

/** Deletes a VM as VCD asks: powered off and undeployed first, then DELETE, each waited for. */
export async function deleteInVcd(h: Harness, vmName: string): Promise<void> {
  const vm = vmOf(h, vmName);
  const call = await tenantUser(h);
  const path = `/api/vApp/vm-${vm.id}`;
  await call('POST', `${path}/action/undeploy`);
  await h.wait(`VM ${vmName} undeployed`, async () =>
    h.sim.inspect.vm(vmName)?.deployed === false ? true : undefined,
  );
  await call('DELETE', path);
  await h.wait(`VM ${vmName} deleted`, async () => (h.sim.inspect.vm(vmName) ? undefined : true));
}
