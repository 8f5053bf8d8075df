/**
 * The query service: `GET /api/query?type=…&format=records|idrecords|references&filter=…&page=…
 * &pageSize=…&sortAsc=…`, answering QueryResultRecords (or References) with paging links.
 */

import { applyFilter, applySort, pageOf, readPaging } from '../query/page.js';
import { RECORD_TYPES } from '../query/records.js';
import { errors } from '../server/errors.js';
import { xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { doc, el } from '../xml/build.js';
import { MT, ROOT_NS } from '../xml/ns.js';
import { orgOf } from './common.js';

const FORMATS = { records: MT.records, idrecords: MT.idrecords, references: MT.references } as const;

/** Registers `GET /api/query`. */
export function queryRoutes(r: Router, sim: Simulator): void {
  r.add('GET', '/api/query', (ctx) => {
    const q = ctx.query;
    const typeName = q.get('type');
    if (!typeName) throw errors.badRequest('The query parameter "type" is required.');
    if (typeName.startsWith('admin'))
      throw errors.forbidden(`Query type "${typeName}" needs system administrator rights.`);
    const type = RECORD_TYPES[typeName];
    if (!type) throw errors.badRequest(`Unknown query type "${typeName}".`);
    const format = (q.get('format') ?? 'records') as keyof typeof FORMATS;
    const mediaType = FORMATS[format];
    if (!mediaType) throw errors.badRequest(`Unknown query format "${format}".`);
    const paging = readPaging(q);
    const all = type.list(sim, orgOf(ctx), ctx.base);
    const getter = (rec: (typeof all)[number]) => (f: string) =>
      f === 'href' ? rec.href : f === 'id' ? rec.id : rec.attrs[f];
    const sorted = applySort(applyFilter(all, q.get('filter'), getter), q, getter);
    const { values, pageCount } = pageOf(sorted, paging);
    const self = (page: number) => {
      const u = new URLSearchParams(q);
      u.set('page', String(page));
      u.set('pageSize', String(paging.pageSize));
      return `${ctx.base}/api/query?${u.toString()}`;
    };
    const links = [
      paging.page > 1 ? el('Link', { rel: 'firstPage', href: self(1), type: mediaType }) : undefined,
      paging.page > 1
        ? el('Link', { rel: 'previousPage', href: self(paging.page - 1), type: mediaType })
        : undefined,
      paging.page < pageCount
        ? el('Link', { rel: 'nextPage', href: self(paging.page + 1), type: mediaType })
        : undefined,
      paging.page < pageCount
        ? el('Link', { rel: 'lastPage', href: self(pageCount), type: mediaType })
        : undefined,
    ];
    const root = format === 'references' ? 'QueryResultReferences' : 'QueryResultRecords';
    const items = values.map((rec) =>
      format === 'references'
        ? el(`${type.element}Reference`, {
            href: rec.href,
            id: rec.id,
            name: String(rec.attrs.name ?? ''),
            type: type.mediaType,
          })
        : el(`${type.element}Record`, {
            ...rec.attrs,
            ...(format === 'idrecords' ? { id: rec.id } : { href: rec.href }),
          }),
    );
    const body = el(
      root,
      {
        ...ROOT_NS,
        total: sorted.length,
        pageSize: paging.pageSize,
        page: paging.page,
        name: typeName,
        type: mediaType,
        href: self(paging.page),
      },
      ...links,
      ...items,
    );
    return xml(200, mediaType, doc(body));
  });
}
