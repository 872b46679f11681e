// Read model of social accounts for GET ORG/marketing/accounts and account lookups by platform: one row per
// account ever connected, folded with the domain's evolve and guarded by stream revision; deleted rows are flagged.
import { sql } from 'kysely';
import { socialAccountDecider, socialAccountView } from '../../domain/social-accounts/social-account.js';
import { socialAccountEventCodec } from '../../domain/social-accounts/event-codec.js';
import { defineProjection } from '../engine/projection.js';
import { readsFrom } from '../engine/event-sources.js';

export const socialAccountsProjection = defineProjection({
  name: 'social_accounts',
  version: 1,
  tables: ['social_accounts'],
  reads: [readsFrom(socialAccountEventCodec)],

  async createTables(trx, schema) {
    const s = sql.id(schema);
    await sql`
      create table ${s}.social_accounts (
        id uuid primary key,
        org_id uuid not null,
        platform text not null,
        status text not null,
        deleted boolean not null,
        created_at timestamptz not null,
        revision integer not null,
        -- The aggregate state, so each event is folded with the domain's own evolve.
        state jsonb not null,
        body jsonb not null
      )`.execute(trx);
    await sql`create index on ${s}.social_accounts (org_id, platform, created_at, id) where not deleted`.execute(
      trx,
    );
  },

  async apply(trx, event, schema) {
    const db = trx.withSchema(schema);
    const accountId = event.data.accountId;
    const row = await db
      .selectFrom('social_accounts')
      .select(['revision', 'state'])
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    // Applied already (a replayed batch): folding it again would move updatedAt backwards or warn twice.
    if (row && row.revision >= event.revision) return;
    const next = socialAccountDecider.evolve(row ? row.state : { kind: 'absent' }, event);
    if (next.kind === 'absent') return;
    const a = next.account;
    const values = {
      id: a.id,
      org_id: a.orgId,
      platform: a.platform,
      status: a.status,
      deleted: next.kind === 'deleted',
      created_at: a.createdAt,
      revision: event.revision,
      state: JSON.stringify(next),
      body: JSON.stringify(socialAccountView(a)),
    };
    await db
      .insertInto('social_accounts')
      .values(values)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          status: values.status,
          deleted: values.deleted,
          created_at: values.created_at,
          revision: values.revision,
          state: values.state,
          body: values.body,
        }),
      )
      .execute();
  },
});
