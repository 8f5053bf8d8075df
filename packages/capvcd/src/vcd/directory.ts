/**
 * Name → href lookups (VDC, networks, storage profiles, templates, compute policies), cached for
 * the life of the session: these do not move under a running cluster, and looking them up on every
 * reconcile is most of today's provider's ~130 calls per machine. A vApp's href is cached too and
 * forgotten when VCD no longer knows it.
 */
import type { VcdClient } from './client.js';
import { UnknownReference } from './errors.js';
import type { NetworkRef } from './vapp.js';
import { childOf, listOf, textOf, type XmlNode } from './xml.js';

/** What a VDC offers, by name. */
export interface VdcInfo {
  href: string;
  /** Its URN, `urn:vcloud:vdc:<uuid>`. */
  id: string;
  networks: Map<string, string>;
  storageProfiles: Map<string, string>;
}

/** An org VDC network's addressing (for static guest network config). */
export interface NetworkInfo {
  gateway?: string;
  prefixLength?: number;
  dns: string[];
}

/** A VDC compute policy as a VM references it; sizing facts are null where the policy sets none. */
export interface ComputePolicy {
  id: string;
  href: string;
  cpuCount: number | null;
  /** MB. */
  memoryMb: number | null;
}

const filter = (clauses: Record<string, string>) =>
  encodeURIComponent(
    Object.entries(clauses)
      .map(([k, v]) => `${k}==${v}`)
      .join(';'),
  );

const missing = (what: string) => new UnknownReference(what);

/** Netmask `255.255.255.0` → 24. */
export function prefixLengthOf(netmask: string): number | undefined {
  const parts = netmask.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return undefined;
  return parts.reduce((n, p) => n + (p.toString(2).match(/1/g)?.length ?? 0), 0);
}

/** Cached lookups on one session. */
export class Directory {
  private readonly cache = new Map<string, Promise<unknown>>();
  private readonly vapps = new Map<string, string>();

  constructor(private readonly vcd: VcdClient) {}

  /** `load()` once per key for the session's life (a failure is not kept). */
  once<T>(key: string, load: () => Promise<T>): Promise<T> {
    let hit = this.cache.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = load();
      this.cache.set(key, hit);
      hit.catch(() => this.cache.delete(key)); // failures are asked again
    }
    return hit;
  }

  private async vdcHref(name: string): Promise<string> {
    const doc = await this.vcd.xml('GET', `/api/query?type=orgVdc&format=records&filter=${filter({ name })}`);
    const record = listOf(childOf(doc, 'QueryResultRecords'), 'OrgVdcRecord')[0];
    if (!record?.href) throw missing(`VDC ${name}`);
    return String(record.href);
  }

  private async readVdc(href: string): Promise<XmlNode> {
    return childOf(await this.vcd.xml('GET', href), 'Vdc') ?? {};
  }

  /** The VDC of this name and what it offers. */
  vdc(name: string): Promise<VdcInfo> {
    return this.once(`vdc:${name}`, async () => {
      const href = await this.vdcHref(name);
      const vdc = await this.readVdc(href);
      const byName = (list: XmlNode[]) => new Map(list.map((n) => [String(n.name), String(n.href)]));
      return {
        href,
        id: String(vdc.id ?? `urn:vcloud:vdc:${href.slice(href.lastIndexOf('/') + 1)}`),
        networks: byName(listOf(childOf(vdc, 'AvailableNetworks'), 'Network')),
        storageProfiles: byName(listOf(childOf(vdc, 'VdcStorageProfiles'), 'VdcStorageProfile')),
      };
    });
  }

  /** The networks by name, in order, each checked to exist in the VDC. */
  async networks(vdcName: string, names: string[]): Promise<NetworkRef[]> {
    const vdc = await this.vdc(vdcName);
    return names.map((name) => {
      const href = vdc.networks.get(name);
      if (!href) throw missing(`network ${name} in VDC ${vdcName}`);
      return { name, href };
    });
  }

  /** The storage profile's href in the VDC. */
  async storageProfile(vdcName: string, name: string): Promise<string> {
    const href = (await this.vdc(vdcName)).storageProfiles.get(name);
    if (!href) throw missing(`storage profile ${name} in VDC ${vdcName}`);
    return href;
  }

  /** The template's (first) VM, the source of new VMs. */
  templateVm(catalog: string, template: string): Promise<string> {
    return this.once(`template:${catalog}/${template}`, async () => {
      const doc = await this.vcd.xml(
        'GET',
        `/api/query?type=vAppTemplate&format=records&filter=${filter({ name: template, catalogName: catalog })}`,
      );
      const record = listOf(childOf(doc, 'QueryResultRecords'), 'VAppTemplateRecord')[0];
      if (!record?.href) throw missing(`template ${template} in catalog ${catalog}`);
      const tpl = childOf(await this.vcd.xml('GET', String(record.href)), 'VAppTemplate');
      const vm = listOf(childOf(tpl, 'Children'), 'Vm')[0];
      if (!vm?.href) throw missing(`a VM in template ${template}`);
      return String(vm.href);
    });
  }

  /** A compute policy by name: its URN and href, and (a sizing policy's) CPU count and memory. */
  computePolicy(name: string): Promise<ComputePolicy> {
    return this.once(`policy:${name}`, async () => {
      const path = `/cloudapi/1.0.0/vdcComputePolicies?filter=${filter({ name })}&pageSize=2`;
      const { body } = await this.vcd.json<{
        values?: Array<{ id: string; name: string; cpuCount?: number | null; memory?: number | null }>;
      }>('GET', path);
      const policy = body?.values?.find((p) => p.name === name);
      if (!policy) throw missing(`compute policy ${name}`);
      return {
        id: policy.id,
        href: `${this.vcd.session.site.base.href.replace(/\/$/, '')}/cloudapi/1.0.0/vdcComputePolicies/${policy.id}`,
        cpuCount: policy.cpuCount ?? null,
        memoryMb: policy.memory ?? null,
      };
    });
  }

  /** Gateway, prefix and DNS of an org VDC network. */
  network(href: string): Promise<NetworkInfo> {
    return this.once(`network:${href}`, async () => {
      const net = childOf(await this.vcd.xml('GET', href), 'OrgVdcNetwork');
      const scope = childOf(childOf(childOf(net, 'Configuration'), 'IpScopes'), 'IpScope');
      const netmask = textOf(scope?.Netmask);
      const prefix = textOf(scope?.SubnetPrefixLength);
      const gateway = textOf(scope?.Gateway);
      return {
        ...(gateway ? { gateway } : {}),
        ...(prefix
          ? { prefixLength: Number(prefix) }
          : netmask
            ? { prefixLength: prefixLengthOf(netmask) }
            : {}),
        dns: [textOf(scope?.Dns1), textOf(scope?.Dns2)].filter((d): d is string => !!d),
      };
    });
  }

  /**
   * The href of the vApp of this name in the VDC, or undefined (asks the VDC unless cached; with
   * `fresh`, asks it anyway, the cached href forgotten first).
   */
  async vappHref(vdcName: string, name: string, opts: { fresh?: boolean } = {}): Promise<string | undefined> {
    const key = `${vdcName}/${name}`;
    if (opts.fresh) this.vapps.delete(key);
    const cached = this.vapps.get(key);
    if (cached) return cached;
    const vdc = await this.readVdc((await this.vdc(vdcName)).href);
    const entity = listOf(childOf(vdc, 'ResourceEntities'), 'ResourceEntity').find(
      (e) => e.name === name && String(e.type ?? '').includes('vApp+xml'),
    );
    if (entity?.href) this.vapps.set(key, String(entity.href));
    return entity?.href ? String(entity.href) : undefined;
  }

  /** Remembers a vApp's href (just created) or forgets it (VCD no longer knows it). */
  rememberVApp(vdcName: string, name: string, href: string | undefined): void {
    if (href) this.vapps.set(`${vdcName}/${name}`, href);
    else this.vapps.delete(`${vdcName}/${name}`);
  }
}
