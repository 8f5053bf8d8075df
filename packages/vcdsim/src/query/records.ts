/**
 * The query service's record types: for each `type=` the records the caller's org may see, as
 * attribute maps in VCD's field names (the names FIQL filters use).
 */

import { shownAddress } from '../model/ippool.js';
import type { Simulator } from '../simulator.js';
import { isTerminal } from '../tasks/machine.js';
import { MT } from '../xml/ns.js';
import { path, urn } from '../xml/refs.js';

/** One record: its element name's stem, its id URN, and its attributes. */
export interface QueryRecord {
  href: string;
  id: string;
  attrs: Record<string, string | number | boolean | undefined>;
}

/** A record type: `OrgVdc` gives `OrgVdcRecord` / `OrgVdcReference`, and the object's media type. */
export interface RecordType {
  element: string;
  mediaType: string;
  list(sim: Simulator, orgId: string, base: string): QueryRecord[];
}

const STATUS: Record<number, string> = {
  [-1]: 'FAILED_CREATION',
  0: 'UNRESOLVED',
  1: 'RESOLVED',
  2: 'DEPLOYED',
  3: 'SUSPENDED',
  4: 'POWERED_ON',
  8: 'POWERED_OFF',
  10: 'MIXED',
};

const iso = (ms: number) => new Date(ms).toISOString();

/** Record types by query `type`. */
export const RECORD_TYPES: Record<string, RecordType> = {
  orgVdc: {
    element: 'OrgVdc',
    mediaType: MT.vdc,
    list: (sim, orgId, base) =>
      [...sim.world.vdcs.values()]
        .filter((v) => v.orgId === orgId)
        .map((v) => ({
          href: `${base}${path.vdc(v.id)}`,
          id: urn('vdc', v.id),
          attrs: {
            name: v.name,
            orgName: sim.world.orgs.get(v.orgId)?.name,
            org: `${base}${path.org(v.orgId)}`,
            description: v.description,
            isEnabled: true,
            isSystemVdc: false,
            status: 'READY',
            numberOfVApps: [...sim.world.vapps.values()].filter((a) => a.vdcId === v.id).length,
            numberOfStorageProfiles: v.storageProfileIds.length,
            allocationModel: 'Flex',
          },
        })),
  },
  catalog: {
    element: 'Catalog',
    mediaType: MT.catalog,
    list: (sim, orgId, base) =>
      [...sim.world.catalogs.values()]
        .filter((c) => c.orgId === orgId)
        .map((c) => ({
          href: `${base}${path.catalog(c.id)}`,
          id: urn('catalog', c.id),
          attrs: {
            name: c.name,
            orgName: sim.world.orgs.get(c.orgId)?.name,
            description: c.description,
            isPublished: false,
            isShared: false,
            numberOfVAppTemplates: c.templateIds.length,
            numberOfMedia: 0,
            ownerName: 'system',
            createdOn: iso(Date.UTC(2026, 0, 1)),
          },
        })),
  },
  vAppTemplate: {
    element: 'VAppTemplate',
    mediaType: MT.vAppTemplate,
    list: (sim, orgId, base) =>
      [...sim.world.templates.values()]
        .filter((t) => t.orgId === orgId)
        .map((t) => ({
          href: `${base}${path.template(t.id)}`,
          id: urn('vappTemplate', t.id),
          attrs: {
            name: t.name,
            catalogName: sim.world.catalogs.get(t.catalogId)?.name,
            catalogItem: `${base}${path.catalogItem(t.catalogItemId)}`,
            vdc: `${base}${path.vdc(t.vdcId)}`,
            vdcName: sim.world.vdcs.get(t.vdcId)?.name,
            org: `${base}${path.org(t.orgId)}`,
            ownerName: 'system',
            status: 'RESOLVED',
            isGoldMaster: false,
            isDeployed: false,
            isEnabled: true,
            isExpired: false,
            storageProfileName: sim.world.storageProfiles.get(t.storageProfileId)?.name,
            creationDate: iso(t.createdAt),
            numberOfVMs: 1,
          },
        })),
  },
  vApp: {
    element: 'VApp',
    mediaType: MT.vApp,
    list: (sim, orgId, base) =>
      [...sim.world.vapps.values()]
        .filter((a) => a.orgId === orgId)
        .map((a) => ({
          href: `${base}${path.vapp(a.id)}`,
          id: urn('vapp', a.id),
          attrs: {
            name: a.name,
            vdc: `${base}${path.vdc(a.vdcId)}`,
            vdcName: sim.world.vdcs.get(a.vdcId)?.name,
            status: STATUS[a.status] ?? 'UNKNOWN',
            isDeployed: a.deployed,
            isBusy: sim.tasks.isBusy(`vapp:${a.id}`),
            ownerName: a.ownerName,
            numberOfVMs: a.vmIds.length,
            creationDate: iso(a.createdAt),
          },
        })),
  },
  vm: {
    element: 'VM',
    mediaType: MT.vm,
    list: (sim, orgId, base) =>
      [...sim.world.vms.values()]
        .filter((vm) => sim.world.vmOrgId(vm) === orgId)
        .map((vm) => {
          const vapp = sim.world.vapps.get(vm.vappId)!;
          const primary = vm.nics.find((n) => n.index === vm.primaryNicIndex);
          return {
            href: `${base}${path.vm(vm.id)}`,
            id: urn('vm', vm.id),
            attrs: {
              name: vm.name,
              container: `${base}${path.vapp(vapp.id)}`,
              containerName: vapp.name,
              vdc: `${base}${path.vdc(vapp.vdcId)}`,
              status: STATUS[vm.status] ?? 'UNKNOWN',
              isDeployed: vm.deployed,
              isVAppTemplate: false,
              isBusy: sim.tasks.isBusy(`vm:${vm.id}`),
              guestOs: vm.osType,
              numberOfCpus: vm.cpuCount,
              memoryMB: vm.memoryMb,
              ipAddress: primary && shownAddress(primary),
              networkName: primary?.network,
              storageProfileName: sim.world.storageProfiles.get(vm.storageProfileId)?.name,
              dateCreated: iso(vm.createdAt),
            },
          };
        }),
  },
  orgVdcNetwork: {
    element: 'OrgVdcNetwork',
    mediaType: MT.orgVdcNetwork,
    list: (sim, orgId, base) =>
      [...sim.world.networks.values()]
        .filter((n) => n.orgId === orgId)
        .map((n) => ({
          href: `${base}${path.network(n.id)}`,
          id: urn('network', n.id),
          attrs: {
            name: n.name,
            vdc: `${base}${path.vdc(n.vdcId)}`,
            vdcName: sim.world.vdcs.get(n.vdcId)?.name,
            linkType: n.edgeGatewayId ? 1 : 2,
            defaultGateway: n.gateway,
            netmask: n.prefixLength,
            dns1: n.dns1,
            dns2: n.dns2,
            dnsSuffix: n.dnsSuffix,
            connectedTo: n.edgeGatewayId ? sim.world.edgeGateways.get(n.edgeGatewayId)?.name : undefined,
            isShared: false,
            isIpScopeInherited: false,
          },
        })),
  },
  task: {
    element: 'Task',
    mediaType: MT.task,
    list: (sim, orgId, base) =>
      [...sim.tasks.tasks.values()]
        .filter((t) => t.orgId === orgId)
        .map((t) => ({
          href: `${base}${path.task(t.id)}`,
          id: urn('task', t.id),
          attrs: {
            name: t.operationName,
            operationFull: t.operation,
            status: t.status,
            startDate: iso(t.startTime),
            endDate: t.endTime === undefined ? undefined : iso(t.endTime),
            objectName: t.owner.name,
            objectType: t.owner.type.replace(/^application\/vnd\.vmware\.vcloud\.|\+xml$/g, ''),
            object: `${base}${t.owner.path}`,
            ownerName: t.userName,
            org: `${base}${path.org(t.orgId)}`,
            isFinished: isTerminal(t.status),
          },
        })),
  },
};
