// The audience reader (domain/analytics/audience.ts) over the follower-count readings (account_audience_* read
// models, projections/analytics/audience-projection.ts) and the social accounts read model: for each connected
// account, its followers at the window's end, their change over the window, and whether they are tracked.
import { sql, type Kysely } from 'kysely';
import type {
  Audience,
  AudienceAccount,
  AudienceReader,
  AudienceTracking,
} from '../../domain/analytics/audience.js';
import type { Platform } from '../../domain/shared/platforms.js';
import { missingAudienceScopes } from '../../infra/connectors/analytics-access.js';
import type { ReadModels } from '../read-models.js';

interface AccountRow {
  id: string;
  platform: Platform;
  status: string;
  account_external_id: string;
  name: string | null;
  scopes: string[] | null;
  last_read_at: string | null;
  unavailable_reason: string | null;
  unavailable_since: string | null;
  followers_end: string | null;
  followers_start: string | null;
}

/**
 * `needs_permission` when the counts cannot be read without the account being reconnected: its grant lacks the
 * scope its platform needs (infra/connectors/analytics-access.ts), the platform refused the read since the last
 * reading, or the account is not connected any more (expired or revoked). Else `live` once a count was read,
 * `pending` before the first.
 */
export function trackingOf(
  row: Pick<
    AccountRow,
    | 'platform'
    | 'status'
    | 'account_external_id'
    | 'scopes'
    | 'last_read_at'
    | 'unavailable_reason'
    | 'unavailable_since'
  >,
): AudienceTracking {
  if (missingAudienceScopes(row.platform, row.account_external_id, row.scopes ?? []))
    return 'needs_permission';
  if (row.status !== 'connected') return 'needs_permission';
  if (
    row.unavailable_reason !== null &&
    (row.last_read_at === null ||
      (row.unavailable_since !== null && Date.parse(row.unavailable_since) > Date.parse(row.last_read_at)))
  )
    return 'needs_permission';
  return row.last_read_at === null ? 'pending' : 'live';
}

function noteFor(accounts: readonly AudienceAccount[]): string {
  if (accounts.length === 0) return 'No social account is connected.';
  const counted = accounts.filter((a) => a.followers !== null).length;
  const needing = accounts.filter((a) => a.tracking === 'needs_permission').length;
  const sentences = [
    counted > 0
      ? `Followers are read once a day; the change is against the last count read at or before the window's start (${counted} of ${accounts.length} ${accounts.length === 1 ? 'account' : 'accounts'} counted).`
      : 'Follower counts are read once a day; none has been read for the window yet.',
  ];
  if (needing > 0)
    sentences.push(
      `${needing} ${needing === 1 ? 'account needs' : 'accounts need'} reconnecting with the permission to read follower counts.`,
    );
  return sentences.join(' ');
}

export function createAudienceReader(db: Kysely<ReadModels>): AudienceReader {
  return {
    async forOrg(orgId, window): Promise<Audience> {
      const to = window.to.toISOString();
      const from = window.from.toISOString();
      const { rows } = await sql<AccountRow>`
        select a.id, a.platform, a.status, a.body->>'accountExternalId' as account_external_id,
          coalesce(a.body->>'accountName', a.body->>'accountHandle') as name,
          array(select jsonb_array_elements_text(coalesce(a.body->'scopes', '[]'::jsonb))) as scopes,
          s.last_read_at, s.unavailable_reason, s.unavailable_since,
          (select r.followers from account_audience_readings r
            where r.social_account_id = a.id and r.read_at <= ${to}
            order by r.read_at desc limit 1) as followers_end,
          (select r.followers from account_audience_readings r
            where r.social_account_id = a.id and r.read_at <= ${from}
            order by r.read_at desc limit 1) as followers_start
        from social_accounts a
        left join account_audience_status s on s.social_account_id = a.id
        where a.org_id = ${orgId} and not a.deleted
        order by a.platform, a.created_at, a.id`.execute(db);
      const accounts: AudienceAccount[] = rows.map((row) => {
        const followers = row.followers_end === null ? null : Number(row.followers_end);
        const start = row.followers_start === null ? null : Number(row.followers_start);
        return {
          socialAccountId: row.id,
          platform: row.platform,
          name: row.name,
          followers,
          change: followers !== null && start !== null ? followers - start : null,
          tracking: trackingOf(row),
        };
      });
      return {
        available: accounts.some((a) => a.followers !== null),
        note: noteFor(accounts),
        accounts,
      };
    },
  };
}
