/** Paging, filtering and sorting shared by the query service and CloudAPI lists. */
import { errors } from '../server/errors.js';
import { type FieldGetter, FiqlError, matches, parseFiql } from './fiql.js';

/** A page request: 1-based page number and its size. */
export interface PageRequest {
  page: number;
  pageSize: number;
}

/** Reads `page` and `pageSize` (VCD's defaults 1 and 25; at most `max`); bad values are 400. */
export function readPaging(q: URLSearchParams, max = 128): PageRequest {
  const num = (name: string, dflt: number): number => {
    const raw = q.get(name);
    if (raw === null || raw === '') return dflt;
    if (!/^\d+$/.test(raw) || Number(raw) < 1)
      throw errors.badRequest(`${name} must be a positive integer, not "${raw}".`);
    return Number(raw);
  };
  return { page: num('page', 1), pageSize: Math.min(num('pageSize', 25), max) };
}

/** Keeps the items matching `filter` (FIQL); a malformed filter is 400. */
export function applyFilter<T>(items: T[], filter: string | null, getter: (item: T) => FieldGetter): T[] {
  if (filter === null || filter === '') return items;
  let f: ReturnType<typeof parseFiql>;
  try {
    f = parseFiql(filter);
  } catch (e) {
    if (e instanceof FiqlError) throw errors.badRequest(`Invalid filter: ${e.message}`);
    throw e;
  }
  return items.filter((i) => matches(f, getter(i)));
}

/** Sorts by `sortAsc` or `sortDesc` if given (stable; missing values last). */
export function applySort<T>(items: T[], q: URLSearchParams, getter: (item: T) => FieldGetter): T[] {
  const asc = q.get('sortAsc');
  const desc = q.get('sortDesc');
  const field = asc ?? desc;
  if (!field) return items;
  const dir = asc ? 1 : -1;
  return [...items].sort((a, b) => {
    const va = getter(a)(field);
    const vb = getter(b)(field);
    if (va === vb) return 0;
    if (va === undefined) return 1;
    if (vb === undefined) return -1;
    return (
      (typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb))) *
      dir
    );
  });
}

/** The slice of one page and the page count (at least 1). */
export function pageOf<T>(items: T[], p: PageRequest): { values: T[]; pageCount: number } {
  const start = (p.page - 1) * p.pageSize;
  return {
    values: items.slice(start, start + p.pageSize),
    pageCount: Math.max(1, Math.ceil(items.length / p.pageSize)),
  };
}
