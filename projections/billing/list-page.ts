// The spec's billing list envelope (the `data` of GET ORG/billing/credits/usage, …/invoices and …/transactions):
// a page of rows and its paging metadata, built in one place for every billing list.

export interface BillingListPage<T> {
  data: T[];
  metadata: {
    page: number;
    limit: number;
    total: number;
    totalPages: number;
    hasNext: boolean;
    hasPrev: boolean;
  };
}

/** Page `page` (1-based) of `limit` rows, of `total` matching rows. */
export function billingListPage<T>(
  rows: T[],
  page: number,
  limit: number,
  total: number,
): BillingListPage<T> {
  const totalPages = Math.ceil(total / limit);
  return {
    data: rows,
    metadata: { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 },
  };
}
