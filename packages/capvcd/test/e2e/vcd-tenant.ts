/**
 * A tenant user acting in Cloud Director behind capvcd's back (as in its UI, or as the CSI driver
 * does): a session of its own, then VCD's own calls, each task waited for until vcdsim shows it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
  return async (method: string, path: string, body?: { type: string; xml: string }): Promise<string> => {
    const headers: Record<string, string> = { Accept: XML, Authorization: `Bearer ${token}` };
    if (body) headers['Content-Type'] = body.type;
    const answer = await callSim(endpoint, method, path, { headers, ...(body ? { body: body.xml } : {}) });
    if (answer.status !== 202 && answer.status !== 201)
      throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.text;
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

/**
 * Deletes a VM as VCD asks: powered off and undeployed first, then DELETE, each waited for. Between
 * the two, capvcd's drift check may find the VM off and power it on again (as CAPV does): VCD then
 * refuses the DELETE (busy, or deployed), and the user tries again, as a person at the UI would.
 */
export async function deleteInVcd(h: Harness, vmName: string): Promise<void> {
  const vm = vmOf(h, vmName);
  const call = await tenantUser(h);
  const path = `/api/vApp/vm-${vm.id}`;
  for (let attempt = 1; ; attempt++) {
    try {
      if (h.sim.inspect.vm(vmName)?.deployed) await call('POST', `${path}/action/undeploy`);
      // Short: a power-on of capvcd's may deploy it again before this looks.
      await h.wait(
        `VM ${vmName} undeployed`,
        async () => (h.sim.inspect.vm(vmName)?.deployed === false ? true : undefined),
        10_000,
      );
      await call('DELETE', path);
      break;
    } catch (err) {
      if (attempt >= 10 || !/BUSY_ENTITY|is deployed|is not powered off|timed out/.test(String(err)))
        throw err;
      await sleep(200);
    }
  }
  await h.wait(`VM ${vmName} deleted`, async () => (h.sim.inspect.vm(vmName) ? undefined : true));
}

const VCLOUD_NS = 'http://www.vmware.com/vcloud/v1.5';
const diskParams = (href: string) => ({
  type: 'application/vnd.vmware.vcloud.diskAttachOrDetachParams+xml',
  xml: `<DiskAttachOrDetachParams xmlns="${VCLOUD_NS}"><Disk href="${href}"/></DiskAttachOrDetachParams>`,
});

/** Creates a named disk in the VDC and attaches it to the VM, as the CSI driver does; its href. */
export async function attachNamedDisk(h: Harness, vdcName: string, vmName: string, diskName: string) {
  const vdc = [...h.sim.inspect.world.vdcs.values()].find((v) => v.name === vdcName);
  if (!vdc) throw new Error(`vcdsim has no VDC ${vdcName}`);
  const call = await tenantUser(h);
  const created = await call('POST', `/api/vdc/${vdc.id}/disk`, {
    type: 'application/vnd.vmware.vcloud.diskCreateParams+xml',
    xml: `<DiskCreateParams xmlns="${VCLOUD_NS}"><Disk name="${diskName}" sizeMb="1024"/></DiskCreateParams>`,
  });
  const href = /<Disk [^>]*href="([^"]+)"/.exec(created)?.[1];
  if (!href) throw new Error(`no disk href in ${created}`);
  await call('POST', `/api/vApp/vm-${vmOf(h, vmName).id}/disk/action/attach`, diskParams(href));
  await h.wait(`disk ${diskName} attached`, async () =>
    [...h.sim.inspect.world.disks.values()].some((d) => d.name === diskName && d.attachedVmId)
      ? true
      : undefined,
  );
  return href;
}

/** Detaches a named disk from the VM, as the CSI driver does when the volume's pod moves. */
export async function detachNamedDisk(h: Harness, vmName: string, href: string): Promise<void> {
  const call = await tenantUser(h);
  await call('POST', `/api/vApp/vm-${vmOf(h, vmName).id}/disk/action/detach`, diskParams(href));
  await h.wait('disk detached', async () =>
    [...h.sim.inspect.world.disks.values()].every((d) => d.attachedVmId === undefined) ? true : undefined,
  );
}
