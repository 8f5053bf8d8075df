/** Read-only legacy entities: org list, org, VDC, catalog, catalog item, vApp template, network. */
import { errors } from '../server/errors.js';
import { xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { ADMIN_MT, adminOrgElement, adminVCloud } from '../xml/admin.js';
import { doc } from '../xml/build.js';
import {
  catalogElement,
  catalogItemElement,
  networkElement,
  orgElement,
  orgList,
  templateElement,
  templateVmDocument,
  vdcElement,
} from '../xml/entities.js';
import { MT } from '../xml/ns.js';
import { orgOf } from './common.js';

/** Registers the entity GET routes. */
export function entityRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  r.add('GET', '/api/org', (ctx) => xml(200, MT.orgList, doc(orgList(ctx.base, [ctx.session!.org]))));
  r.add('GET', '/api/org/{id}', (ctx) => {
    const org = w.orgs.get(ctx.params.id ?? '');
    if (!org || org.id !== orgOf(ctx)) throw errors.forbidden();
    return xml(200, MT.org, doc(orgElement(w, ctx.base, org)));
  });
  // An organization administrator reads the admin view of its own org; any other org is 403 (VCD
  // does not say whether it exists), never 404.
  r.add('GET', '/api/admin', (ctx) =>
    xml(200, ADMIN_MT.vcloud, doc(adminVCloud(ctx.base, [ctx.session!.org]))),
  );
  r.add('GET', '/api/admin/org/{id}', (ctx) => {
    const org = w.orgs.get((ctx.params.id ?? '').toLowerCase());
    if (!org || org.id !== orgOf(ctx)) throw errors.forbidden();
    return xml(200, ADMIN_MT.org, doc(adminOrgElement(w, ctx.base, org)));
  });
  r.add('GET', '/api/vdc/{id}', (ctx) => {
    const vdc = w.visible(w.vdcs, ctx.params.id ?? '', orgOf(ctx));
    return xml(200, MT.vdc, doc(vdcElement(w, ctx.base, vdc)));
  });
  r.add('GET', '/api/catalog/{id}', (ctx) => {
    const c = w.visible(w.catalogs, ctx.params.id ?? '', orgOf(ctx));
    return xml(200, MT.catalog, doc(catalogElement(w, ctx.base, c)));
  });
  r.add('GET', '/api/catalogItem/{id}', (ctx) => {
    const t = [...w.templates.values()].find((x) => x.catalogItemId === ctx.params.id);
    if (!t || t.orgId !== orgOf(ctx)) throw errors.forbidden();
    return xml(200, MT.catalogItem, doc(catalogItemElement(ctx.base, t)));
  });
  r.add('GET', '/api/vAppTemplate/vappTemplate-{id}', (ctx) => {
    const t = w.visible(w.templates, ctx.params.id ?? '', orgOf(ctx));
    return xml(200, MT.vAppTemplate, doc(templateElement(w, ctx.base, t)));
  });
  r.add('GET', '/api/vAppTemplate/vm-{id}', (ctx) => {
    const t = w.visibleTemplateVm(ctx.params.id ?? '', orgOf(ctx));
    return xml(200, MT.vm, doc(templateVmDocument(w, ctx.base, t)));
  });
  // Tenants read org VDC networks under /api/network; govcd also reads them under /api/admin/network.
  for (const p of ['/api/network/{id}', '/api/admin/network/{id}'])
    r.add('GET', p, (ctx) => {
      const n = w.visible(w.networks, ctx.params.id ?? '', orgOf(ctx));
      return xml(200, MT.orgVdcNetwork, doc(networkElement(w, ctx.base, n)));
    });
}
