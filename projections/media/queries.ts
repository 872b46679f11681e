// Queries over the media library's read model: a page of a workspace's assets (newest first) with the counts
// of its collections, one asset, and which of some asset ids are the workspace's.
import { sql, type Kysely } from 'kysely';
import type { MediaItem, MediaSource } from '../../commands/media/library.js';
import type { MediaAsset } from '../../domain/shared/media-asset.js';
import type { VisualFormatId } from '../../infra/visuals/contract.js';
import type { ReadModels } from '../read-models.js';
import type { MediaAssetsTable, MediaListKind, MediaTables } from './media-projection.js';

export const mediaCollections = ['all', 'uploads', 'on_brand'] as const;
export type MediaCollection = (typeof mediaCollections)[number];

/** Which sources each collection holds: uploads are what people brought, on-brand what the service rendered. */
export const collectionSources: Record<Exclude<MediaCollection, 'all'>, readonly MediaSource[]> = {
  uploads: ['upload', 'import'],
  on_brand: ['branded_image', 'carousel', 'screenshot'],
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Db = Kysely<ReadModels>;
const tablesOf = (db: Db) => db.withTables<MediaTables>() as unknown as Kysely<MediaTables>;

export interface MediaRow {
  item: MediaItem;
  key: string;
  contentType: string;
}

function itemOf(row: MediaAssetsTable): MediaRow {
  const asset = (typeof row.asset === 'string' ? JSON.parse(row.asset) : row.asset) as MediaAsset;
  const createdAt = row.created_at instanceof Date ? row.created_at : new Date(row.created_at);
  return {
    item: {
      id: row.id,
      source: row.source as MediaSource,
      asset,
      previewUrl: row.preview_url,
      title: row.title,
      format: row.format as VisualFormatId | null,
      aiGenerated: row.ai_generated,
      sizeBytes: Number(row.size_bytes),
      createdAt: createdAt.toISOString(),
    },
    key: row.key,
    contentType: row.content_type,
  };
}

export interface MediaPageQuery {
  collection: MediaCollection;
  kind: 'all' | MediaListKind;
  limit: number;
  offset: number;
}

export interface MediaPage {
  items: MediaItem[];
  total: number;
  counts: { all: number; uploads: number; onBrand: number };
}

/** One page of the workspace's assets, newest first, and the counts of every collection (of the kind asked). */
export async function findMedia(db: Db, orgId: string, query: MediaPageQuery): Promise<MediaPage> {
  const t = tablesOf(db);
  let scoped = t.selectFrom('media_assets').where('org_id', '=', orgId);
  if (query.kind !== 'all') scoped = scoped.where('kind', '=', query.kind);
  const inCollection =
    query.collection === 'all'
      ? scoped
      : scoped.where('source', 'in', [...collectionSources[query.collection]]);
  const uploads = [...collectionSources.uploads];
  const onBrand = [...collectionSources.on_brand];
  const [rows, counts] = await Promise.all([
    inCollection
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    scoped
      .select([
        sql<string>`count(*)`.as('all'),
        sql<string>`count(*) filter (where source in (${sql.join(uploads)}))`.as('uploads'),
        sql<string>`count(*) filter (where source in (${sql.join(onBrand)}))`.as('on_brand'),
      ])
      .executeTakeFirstOrThrow(),
  ]);
  const all = Number(counts.all);
  const counted = { all, uploads: Number(counts.uploads), onBrand: Number(counts.on_brand) };
  const total =
    query.collection === 'all'
      ? counted.all
      : query.collection === 'uploads'
        ? counted.uploads
        : counted.onBrand;
  return { items: rows.map((row) => itemOf(row).item), total, counts: counted };
}

/** An asset of the workspace with where its bytes are, or null (also for another workspace's asset). */
export async function findMediaAsset(db: Db, orgId: string, assetId: string): Promise<MediaRow | null> {
  if (!uuidPattern.test(assetId)) return null;
  const row = await tablesOf(db)
    .selectFrom('media_assets')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', assetId)
    .executeTakeFirst();
  return row ? itemOf(row) : null;
}

/** Those of `ids` that are assets of the workspace; ids that are not uuids are simply not among them. */
export async function existingMediaAssetIds(
  db: Db,
  orgId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const candidates = [...new Set(ids.filter((id) => uuidPattern.test(id)))];
  if (candidates.length === 0) return new Set();
  const rows = await tablesOf(db)
    .selectFrom('media_assets')
    .select('id')
    .where('org_id', '=', orgId)
    .where('id', 'in', candidates)
    .execute();
  const found = new Set(rows.map((r) => r.id.toLowerCase()));
  return new Set(candidates.filter((id) => found.has(id.toLowerCase())));
}

/** Bytes the workspace's recorded assets take (as far as the read model has caught up). */
export async function mediaBytesUsed(db: Db, orgId: string): Promise<number> {
  const row = await tablesOf(db)
    .selectFrom('media_assets')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('size_bytes'), eb.lit(0)).as('used'))
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return Number(row?.used ?? 0);
}
