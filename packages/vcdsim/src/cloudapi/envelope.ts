/** CloudAPI conventions: URN ids, `{name, id}` references, the paged list envelope, tenant context. */
import { applyFilter, applySort, pageOf, readPaging } from '../query/page.js';
import { errors } from '../server/errors.js';
import { type Ctx, json, type Reply } from '../server/http.js';

/** A CloudAPI entity reference. */
export interface EntityRef {
  name: string;
  id: string;
}

export const entityRef = (name: string, id: string): EntityRef => ({ name, id });

/** The value at a dotted path of a JSON object (`gatewayRef.id`), for FIQL and sorting. */
export function dotted(obj: unknown, field: string): string | number | boolean | undefined {
  let v: unknown = obj;
  for (const part of field.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : undefined;
}

/** A list answer: FIQL `filter`, `sortAsc`/`sortDesc`, `page`/`pageSize`, in VCD's envelope. */
export function listReply(ctx: Ctx, items: object[]): Reply {
  const paging = readPaging(ctx.query);
  const getter = (item: object) => (f: string) => dotted(item, f);
  const filtered = applySort(applyFilter(items, ctx.query.get('filter'), getter), ctx.query, getter);
  const { values, pageCount } = pageOf(filtered, paging);
  return json(200, {
    resultTotal: filtered.length,
    pageCount,
    page: paging.page,
    pageSize: paging.pageSize,
    associations: null,
    values,
  });
}

/**
 * The bare UUID of a URN path parameter of the given kind; anything else is VCD's 403 (it cannot
 * exist). A tenant-context header naming another org is refused the same way.
 */
export function urnParam(ctx: Ctx, kind: string, name = 'id'): string {
  const raw = ctx.params[name] ?? '';
  const m = new RegExp(`^urn:vcloud:${kind}:([0-9a-f-]{36})$`, 'i').exec(raw);
  if (!m) throw errors.forbidden();
  return m[1]!.toLowerCase();
}

/** Checks `X-VMWARE-VCLOUD-TENANT-CONTEXT` (if sent) names the caller's own org. */
export function checkTenantContext(ctx: Ctx): void {
  const h = ctx.req.headers['x-vmware-vcloud-tenant-context'];
  if (typeof h !== 'string' || h === '') return;
  const id = h.replace(/^urn:vcloud:org:/i, '').toLowerCase();
  if (id !== ctx.session!.org.id)
    throw errors.forbidden('The tenant context names an organization you do not belong to.');
}
