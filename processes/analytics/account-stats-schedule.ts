// Each connected social account's follower counts are read once a day: this process manager keeps the account's
// row of the read schedule (account_stats_reads) in the same transaction as its checkpoint. A connection (or a
// reconnection, which may bring the permission the read needs) makes a read due ten minutes later; removing the
// account ends its reads. The runner hands each event once (its checkpoint is in the same transaction). The
// account-stats reader (processes/analytics/account-stats-reader.ts) does the reading.
import { sql } from 'kysely';
import { socialAccountEventCodec } from '../../domain/social-accounts/event-codec.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess } from '../runner/process-manager.js';

/** Between an account's follower-count readings. */
export const ACCOUNT_STATS_INTERVAL_MS = 24 * 3_600_000;

/**
 * The first reading after a connection or reconnection: ten minutes later rather than at once, so the account
 * is settled (its tokens stored, its profile read) and a service's own start-up round does not race the people
 * connecting; the audience shows it `pending` until then.
 */
export const ACCOUNT_STATS_FIRST_READ_MS = 10 * 60_000;

const firstReadAfter = (at: string) => new Date(Date.parse(at) + ACCOUNT_STATS_FIRST_READ_MS).toISOString();

export const accountStatsScheduleProcess = defineProcess({
  name: 'account-stats-schedule',
  reads: [
    readsFrom(socialAccountEventCodec, [
      'SocialAccountConnected',
      'SocialAccountReconnected',
      'SocialAccountDeleted',
    ]),
  ],
  async handle(trx, event) {
    switch (event.type) {
      case 'SocialAccountConnected': {
        const d = event.data;
        await sql`
          insert into account_stats_reads (social_account_id, org_id, platform, status, next_read_at, updated_at)
          values (${d.accountId}, ${d.orgId}, ${d.platform}, 'active', ${firstReadAfter(d.connectedAt)}, ${d.connectedAt})
          on conflict (social_account_id) do update set
            status = 'active', next_read_at = excluded.next_read_at, attempts = 0, last_error = null,
            updated_at = excluded.updated_at`.execute(trx);
        return;
      }
      case 'SocialAccountReconnected': {
        const d = event.data;
        await sql`
          update account_stats_reads set status = 'active', next_read_at = ${firstReadAfter(d.reconnectedAt)}, attempts = 0,
            last_error = null, updated_at = ${d.reconnectedAt}
          where social_account_id = ${d.accountId}`.execute(trx);
        return;
      }
      case 'SocialAccountDeleted': {
        const d = event.data;
        await sql`
          update account_stats_reads set status = 'stopped', next_read_at = null, updated_at = ${d.deletedAt}
          where social_account_id = ${d.accountId}`.execute(trx);
        return;
      }
      default: {
        const never: never = event;
        return never;
      }
    }
  },
});
