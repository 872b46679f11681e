// Read model of each workspace's brand-profile status for onboarding (brandProfileDetected, brandConfirmed): one row
// per workspace with a profile, folded with the domain's own evolve and guarded by the stream revision, so a
// replayed event changes nothing. The profile itself is read from its stream.
import { sql } from 'kysely';
import { brandProfileDecider } from '../../domain/brand-profile/brand-profile.js';
import { brandProfileEventCodec } from '../../domain/brand-profile/event-codec.js';
import { readsFrom } from '../engine/event-sources.js';
import { defineProjection } from '../engine/projection.js';
import type { OnboardingProbe } from '../onboarding/probes.js';

/** A type, not an interface, so `withTables` takes it. */
export type BrandProfileStatusTable = {
  org_id: string;
  revision: number;
  confirmed_at: string | null;
  last_inferred_at: string | null;
  updated_at: string;
};
type Tables = { brand_profile_status: BrandProfileStatusTable };

export const brandProfileStatusProjection = defineProjection({
  name: 'brand_profile_status',
  version: 1,
  tables: ['brand_profile_status'],
  reads: [readsFrom(brandProfileEventCodec)],

  async createTables(trx, schema) {
    await sql`
      create table ${sql.id(schema)}.brand_profile_status (
        org_id uuid primary key,
        revision integer not null,
        confirmed_at timestamptz,
        last_inferred_at timestamptz,
        updated_at timestamptz not null
      )`.execute(trx);
  },

  async apply(trx, event, schema) {
    const db = trx.withTables<Tables>().withSchema(schema);
    const orgId = event.data.orgId;
    const row = await db
      .selectFrom('brand_profile_status')
      .selectAll()
      .where('org_id', '=', orgId)
      .forUpdate()
      .executeTakeFirst();
    if (row && row.revision >= event.revision) return;
    // Only the dates are kept; evolve decides them as the aggregate does.
    const next = brandProfileDecider.evolve(
      {
        ...brandProfileDecider.initialState,
        exists: row !== undefined,
        confirmedAt: row?.confirmed_at ? new Date(row.confirmed_at).toISOString() : null,
        lastInferredAt: row?.last_inferred_at ? new Date(row.last_inferred_at).toISOString() : null,
      },
      event,
    );
    const values = {
      org_id: orgId,
      revision: event.revision,
      confirmed_at: next.confirmedAt,
      last_inferred_at: next.lastInferredAt,
      updated_at: event.data.at,
    };
    await db
      .insertInto('brand_profile_status')
      .values(values)
      .onConflict((oc) =>
        oc.column('org_id').doUpdateSet({
          revision: values.revision,
          confirmed_at: values.confirmed_at,
          last_inferred_at: values.last_inferred_at,
          updated_at: values.updated_at,
        }),
      )
      .execute();
  },
});

/**
 * The brand step's facts: a profile was detected (inferred from a website, or written by a person) and a person
 * confirmed it as the brand context.
 */
export const brandProfileProbe: OnboardingProbe = async (db, orgId) => {
  const row = await db
    .withTables<Tables>()
    .selectFrom('brand_profile_status')
    .select(['confirmed_at'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return { brandProfileDetected: row !== undefined, brandConfirmed: row?.confirmed_at != null };
};
