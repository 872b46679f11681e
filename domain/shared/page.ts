// The paged list answer `{ items, page, limit, total, hasMore }` (posts, media, notifications): the one type and
// the one builder every such list uses; its OpenAPI schema is pageSchema/pageShape in api/platform/paging.ts.
// (The billing lists answer the spec's other envelope, `{ data, metadata }`: projections/billing/list-page.ts.)

/** Page `page` (1-based) of `limit` items, of `total` matching items, and whether more follow it. */
export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

/** The page of `items` at `page` (1-based) of `limit` items each, `total` matching in all. */
export function toPage<T>(items: T[], total: number, page: number, limit: number): Page<T> {
  return { items, page, limit, total, hasMore: page * limit < total };
}
