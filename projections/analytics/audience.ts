// The audience reader (domain/analytics/audience.ts) over the social accounts read model. Follower counts are not
// recorded yet: every connected account is listed with tracking `pending` and no numbers.
import type { Kysely } from 'kysely';
import type { Audience, AudienceReader } from '../../domain/analytics/audience.js';
import type { ReadModels } from '../read-models.js';

export function createAudienceReader(db: Kysely<ReadModels>): AudienceReader {
  return {
    async forOrg(orgId): Promise<Audience> {
      const rows = await db
        .selectFrom('social_accounts')
        .select('body')
        .where('org_id', '=', orgId)
        .where('deleted', '=', false)
        .orderBy('platform')
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return {
        available: false,
        note:
          rows.length === 0 ? 'No social account is connected.' : 'Follower counts have not been read yet.',
        accounts: rows.map(({ body }) => ({
          socialAccountId: body.id,
          platform: body.platform,
          name: body.accountName ?? body.accountHandle ?? null,
          followers: null,
          change: null,
          tracking: 'pending' as const,
        })),
      };
    },
  };
}
