// Read model of the media library (GET ORG/marketing/media, and the checks that an asset is the workspace's):
// one row per stored asset. MediaAssetStored carries every value, so applying it twice writes nothing new.
import { sql } from 'kysely';
import { mediaEventCodec } from '../../domain/media/event-codec.js';
import type { StoredMediaAsset } from '../../domain/media/media-asset.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

/** How the list's `kind` filter sees an asset. */
export const mediaListKinds = ['image', 'video', 'carousel'] as const;
export type MediaListKind = (typeof mediaListKinds)[number];

/** A carousel's PDF and slide sets count as carousels, videos as videos, everything else as images. */
export function listKindOf(stored: Pick<StoredMediaAsset, 'source' | 'asset'>): MediaListKind {
  if (stored.asset.kind === 'video') return 'video';
  if (stored.source === 'carousel' || stored.asset.kind === 'document' || stored.asset.kind === 'images')
    return 'carousel';
  return 'image';
}

/** A type, not an interface, so `withTables` takes it. */
export type MediaAssetsTable = {
  org_id: string;
  id: string;
  source: string;
  kind: string;
  asset: unknown;
  key: string;
  content_type: string;
  preview_url: string | null;
  title: string | null;
  format: string | null;
  ai_generated: boolean;
  size_bytes: string | number;
  created_at: string | Date;
};
export type MediaTables = { media_assets: MediaAssetsTable };

export const mediaProjection = defineProjection({
  name: 'media',
  version: 1,
  tables: ['media_assets'],
  reads: [readsFrom(mediaEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.media_assets (
        id uuid primary key,
        org_id uuid not null,
        source text not null,
        kind text not null,
        asset jsonb not null,
        key text not null,
        content_type text not null,
        preview_url text,
        title text,
        format text,
        ai_generated boolean not null,
        size_bytes bigint not null,
        created_at timestamptz not null
      )`.execute(trx);
    await sql`create index on ${s}.media_assets (org_id, created_at desc, id desc)`.execute(trx);
    await sql`create index on ${s}.media_assets (org_id, kind, created_at desc, id desc)`.execute(trx);
  },

  async apply(trx, event, schema) {
    const d = event.data;
    await trx
      .withTables<MediaTables>()
      .withSchema(schema)
      .insertInto('media_assets')
      .values({
        id: d.assetId,
        org_id: d.orgId,
        source: d.source,
        kind: listKindOf(d),
        asset: JSON.stringify(d.asset),
        key: d.key,
        content_type: d.contentType,
        preview_url: d.previewUrl,
        title: d.title,
        format: d.format,
        ai_generated: d.aiGenerated,
        size_bytes: d.sizeBytes,
        created_at: d.at,
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },
});
