/**
 * The admin view an organization administrator gets: `VCloud` (GET /api/admin) lists the orgs it
 * may administer (its own), `AdminOrg` (GET /api/admin/org/{id}) its org with settings, VDCs,
 * catalogs and networks, in the schema's element order.
 */
import type { Org, World } from '../model/world.js';
import { el, text } from './build.js';
import { MT, ROOT_NS } from './ns.js';
import { link, path, ref, urn } from './refs.js';

const ADMIN_MT = {
  vcloud: 'application/vnd.vmware.admin.vcloud+xml',
  org: 'application/vnd.vmware.admin.organization+xml',
  vdc: 'application/vnd.vmware.admin.vdc+xml',
  catalog: 'application/vnd.vmware.admin.catalog+xml',
  settings: 'application/vnd.vmware.admin.orgSettings+xml',
  general: 'application/vnd.vmware.admin.organizationGeneralSettings+xml',
} as const;

export { ADMIN_MT };

/** `VCloud`: the admin entry point, listing the caller's org. */
export function adminVCloud(base: string, orgs: Org[]): string {
  return el(
    'VCloud',
    { ...ROOT_NS, name: 'vCloud', href: `${base}/api/admin`, type: ADMIN_MT.vcloud },
    link(base, 'down', MT.orgList, '/api/org'),
    text('Description', ''),
    el(
      'OrganizationReferences',
      undefined,
      ...orgs.map((o) => ref('OrganizationReference', base, ADMIN_MT.org, `/api/admin/org/${o.id}`, o.name)),
    ),
  );
}

/** `AdminOrg`: the org as its administrator sees it. */
export function adminOrgElement(world: World, base: string, org: Org): string {
  const p = `/api/admin/org/${org.id}`;
  const vdcs = [...world.vdcs.values()].filter((v) => v.orgId === org.id);
  const cats = [...world.catalogs.values()].filter((c) => c.orgId === org.id);
  const nets = [...world.networks.values()].filter((n) => n.orgId === org.id);
  return el(
    'AdminOrg',
    { ...ROOT_NS, name: org.name, id: urn('org', org.id), href: `${base}${p}`, type: ADMIN_MT.org },
    link(base, 'up', ADMIN_MT.vcloud, '/api/admin'),
    link(base, 'alternate', MT.org, path.org(org.id)),
    text('Description', ''),
    text('FullName', org.fullName),
    text('IsEnabled', true),
    el(
      'Settings',
      { href: `${base}${p}/settings`, type: ADMIN_MT.settings },
      el(
        'OrgGeneralSettings',
        { href: `${base}${p}/settings/general`, type: ADMIN_MT.general },
        text('CanPublishCatalogs', false),
        text('CanPublishExternally', false),
        text('CanSubscribe', false),
        text('DeployedVMQuota', 0),
        text('StoredVmQuota', 0),
        text('UseServerBootSequence', false),
        text('DelayAfterPowerOnSeconds', 0),
      ),
    ),
    el(
      'Catalogs',
      undefined,
      ...cats.map((c) =>
        ref('CatalogReference', base, ADMIN_MT.catalog, `/api/admin/catalog/${c.id}`, c.name),
      ),
    ),
    el(
      'Vdcs',
      undefined,
      ...vdcs.map((v) => ref('Vdc', base, ADMIN_MT.vdc, `/api/admin/vdc/${v.id}`, v.name)),
    ),
    el(
      'Networks',
      undefined,
      ...nets.map((n) => ref('Network', base, MT.orgVdcNetwork, `/api/admin/network/${n.id}`, n.name)),
    ),
  );
}
