// When a social account is deleted, the posts still to be published with it lose it: scheduled ones go back to
// approved without a time, with lastError saying why (docs/decisions.md "Accounts removed or disconnected").
import { sql } from 'kysely';
import type { Bus, Consumer } from '../../infra/bus/port.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import { removeSocialAccountFromGroup } from '../../commands/publishing/publish-commands.js';
import { NotFound } from '../../domain/shared/errors.js';
import { socialAccountEventCodec } from '../../domain/social-accounts/event-codec.js';
import { readsFrom } from '../../projections/engine/event-sources.js';
import { defineProcess, outboxMessageId } from '../runner/process-manager.js';

export const ACCOUNT_REMOVAL_QUEUE = 'accounts.detach';

export interface DetachJob {
  orgId: string;
  groupId: string;
  socialAccountId: string;
  message: string;
}

/** Statuses a removed account no longer serves (in-flight and sent posts keep their account). */
const unsent = ['draft', 'pending_approval', 'approved', 'scheduled', 'failed'];

export const accountRemovalProcess = defineProcess({
  name: 'account-removal',
  reads: [readsFrom(socialAccountEventCodec, ['SocialAccountDeleted'])],
  async handle(trx, event, ctx) {
    const { accountId, orgId } = event.data;
    const account = await sql<{ handle: string | null; platform: string }>`
      select body->>'accountHandle' as handle, platform from social_accounts where id = ${accountId}`.execute(
      trx,
    );
    const who = account.rows[0]?.handle ? `@${account.rows[0].handle}` : 'its social account';
    const platform = account.rows[0]?.platform ?? 'the platform';
    const message = `The ${platform} account ${who} was removed from the workspace; choose another account and schedule the post again`;
    const groups = await sql<{ group_id: string }>`
      select distinct group_id from posts
      where org_id = ${orgId} and social_account_id = ${accountId} and status in (${sql.join(unsent)})`.execute(
      trx,
    );
    for (const { group_id: groupId } of groups.rows) {
      await ctx.enqueue({
        id: outboxMessageId('account-removal', event.id, groupId),
        destination: ACCOUNT_REMOVAL_QUEUE,
        payload: { orgId, groupId, socialAccountId: accountId, message } satisfies DetachJob,
      });
    }
  },
});

/** Runs the detach jobs: one command per group (a no-op when nothing is left to detach). */
export async function consumeAccountRemovals(bus: Bus, commands: CommandDeps): Promise<Consumer> {
  return bus.consume(
    ACCOUNT_REMOVAL_QUEUE,
    async (message) => {
      const job = message.data as DetachJob;
      try {
        await removeSocialAccountFromGroup(commands, job, new Date());
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
      }
    },
    { concurrency: 4 },
  );
}
