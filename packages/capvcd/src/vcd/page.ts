/** How CloudAPI list endpoints are asked (a FIQL `filter`) and what a page of them answers. */

/** One page of a CloudAPI list. */
export interface Page<T> {
  values?: T[];
  pageCount?: number;
}

/** The `filter=` query parameter for a FIQL filter such as `name==x`, encoded. */
export const q = (filter: string): string => `filter=${encodeURIComponent(filter)}`;
