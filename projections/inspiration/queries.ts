// Queries over the inspiration read model (issue 31): the library for GET ORG/inspiration (every filter of the
// spec, recent or most relevant first, paged), one item, the opportunities (open and saved items, most relevant
// first; Tool: list_inspiration_opportunities) and a workspace's item saved from a link (a repeated save answers it).
import { sql, type Kysely } from 'kysely';
import type { Interpretation } from '../../domain/inspiration/interpretation.js';
import type {
  AnalysisStatus,
  InspirationItem,
  InspirationPlatform,
  OpportunityStatus,
} from '../../domain/inspiration/item.js';
import { inspirationItemView, type InspirationItemView } from '../../domain/inspiration/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { ReadModels } from '../read-models.js';
import type { InspirationTables } from './inspiration-projection.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<any>;
const tablesOf = (db: AnyReadModels | Kysely<ReadModels>) =>
  (db as AnyReadModels).withTables<InspirationTables>() as Kysely<InspirationTables>;

const parse = <T>(value: T | string | null): T | null =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value;

/** Reading the library: every member; assistants with mcp:read. */
export const inspirationReading = (orgId: string) =>
  ({ orgId, permission: 'workspace:read', scope: 'mcp:read' }) as const;

export const inspirationSorts = ['relevance', 'recent'] as const;
export type InspirationSort = (typeof inspirationSorts)[number];

export interface InspirationFilters {
  orgId: string;
  includeHidden: boolean;
  platform?: InspirationPlatform | undefined;
  topic?: string | undefined;
  hook?: string | undefined;
  audience?: string | undefined;
  creator?: string | undefined;
  tag?: string | undefined;
  analysisStatus?: AnalysisStatus | undefined;
  opportunityStatus?: OpportunityStatus | undefined;
  savedFrom?: string | undefined;
  savedTo?: string | undefined;
  sort?: InspirationSort | undefined;
  page: number;
  limit: number;
}

/** `%`, `_` and `\` taken literally in a contains filter. */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** A date alone means the start of that day (UTC) for savedFrom and its end for savedTo. */
export const dayBound = (value: string, end: boolean) =>
  /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value;

function filtered(db: AnyReadModels | Kysely<ReadModels>, f: InspirationFilters) {
  let q = tablesOf(db)
    .selectFrom('inspiration_items')
    .where('org_id', '=', f.orgId)
    .where('deleted', '=', false);
  if (f.opportunityStatus) q = q.where('opportunity_status', '=', f.opportunityStatus);
  // Hidden and dismissed items are put away: shown when asked for, or when their status is the filter.
  else if (!f.includeHidden) q = q.where('opportunity_status', 'not in', ['hidden', 'dismissed']);
  if (f.platform) q = q.where('platform', '=', f.platform);
  if (f.topic) q = q.where('topic', 'like', containing(f.topic));
  if (f.hook) q = q.where('hook', 'like', containing(f.hook));
  if (f.audience) q = q.where('audience', 'like', containing(f.audience));
  if (f.creator) q = q.where('creator', 'like', containing(f.creator));
  if (f.tag) q = q.where(sql<boolean>`tags @> array[${f.tag.trim().toLowerCase()}]::text[]`);
  if (f.analysisStatus) q = q.where('analysis_status', '=', f.analysisStatus);
  if (f.savedFrom) q = q.where('created_at', '>=', dayBound(f.savedFrom, false));
  if (f.savedTo) q = q.where('created_at', '<=', dayBound(f.savedTo, true));
  return q;
}

interface Row {
  item: InspirationItem | string | null;
  interpretation: Interpretation | string | null;
}

function viewsOf(rows: readonly Row[]): InspirationItemView[] {
  return rows.flatMap((r) => {
    const item = parse<InspirationItem>(r.item);
    return item ? [inspirationItemView(item, parse<Interpretation>(r.interpretation))] : [];
  });
}

async function pageOf(db: Kysely<ReadModels>, f: InspirationFilters): Promise<Page<InspirationItemView>> {
  let rows = filtered(db, f).select(['item', 'interpretation']);
  rows =
    f.sort === 'relevance'
      ? rows
          .orderBy(sql`relevance_score desc nulls last`)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
      : rows.orderBy('created_at', 'desc').orderBy('id', 'desc');
  const [found, count] = await Promise.all([
    rows
      .limit(f.limit)
      .offset((f.page - 1) * f.limit)
      .execute(),
    filtered(db, f)
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirst(),
  ]);
  return toPage(viewsOf(found), Number(count?.total ?? 0), f.page, f.limit);
}

/** GET ORG/inspiration: the library, filtered, recent (default) or most relevant first. */
export async function listInspiration(
  db: Kysely<ReadModels>,
  caller: Caller,
  filters: InspirationFilters,
): Promise<Page<InspirationItemView>> {
  authorize(caller, inspirationReading(filters.orgId));
  return pageOf(db, filters);
}

export const opportunityListStatuses = ['open', 'saved'] as const;

/**
 * Tool: list_inspiration_opportunities. Items still worth acting on (open and saved; or one of them), most relevant
 * first, then newest.
 */
export async function listInspirationOpportunities(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: {
    orgId: string;
    status?: (typeof opportunityListStatuses)[number] | undefined;
    platform?: InspirationPlatform | undefined;
    page: number;
    limit: number;
  },
): Promise<Page<InspirationItemView>> {
  authorize(caller, inspirationReading(input.orgId));
  const base = {
    orgId: input.orgId,
    includeHidden: false,
    platform: input.platform,
    sort: 'relevance' as const,
  };
  if (input.status)
    return pageOf(db, { ...base, opportunityStatus: input.status, page: input.page, limit: input.limit });
  // Open and saved: neither hidden, dismissed nor acted on.
  const f: InspirationFilters = { ...base, page: input.page, limit: input.limit };
  const scoped = () => filtered(db, f).where('opportunity_status', 'in', [...opportunityListStatuses]);
  const [found, count] = await Promise.all([
    scoped()
      .select(['item', 'interpretation'])
      .orderBy(sql`relevance_score desc nulls last`)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.limit)
      .offset((input.page - 1) * input.limit)
      .execute(),
    scoped()
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirst(),
  ]);
  return toPage(viewsOf(found), Number(count?.total ?? 0), input.page, input.limit);
}

/** GET ORG/inspiration/{itemId}: the item of the workspace, or 404. */
export async function getInspirationItem(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; itemId: string },
): Promise<InspirationItemView> {
  authorize(caller, inspirationReading(input.orgId));
  const row = await tablesOf(db)
    .selectFrom('inspiration_items')
    .select(['item', 'interpretation'])
    .where('id', '=', input.itemId)
    .where('org_id', '=', input.orgId)
    .where('deleted', '=', false)
    .executeTakeFirst();
  const [view] = row ? viewsOf([row]) : [];
  if (!view) throw new NotFound('Inspiration item not found', 'inspiration_item_not_found');
  return view;
}

/** The workspace's live item saved from this post (its X id or LinkedIn URN), if any (saved again, it answers it). */
export async function itemIdBySourceKey(
  db: Kysely<ReadModels>,
  orgId: string,
  platform: InspirationPlatform,
  sourceExternalId: string,
): Promise<string | null> {
  const row = await tablesOf(db)
    .selectFrom('inspiration_items')
    .select('id')
    .where('org_id', '=', orgId)
    .where('deleted', '=', false)
    .where('platform', '=', platform)
    .where('source_external_id', '=', sourceExternalId)
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.id ?? null;
}
