// Queries over the DM conversations read model: GET ORG/dms (list_dm_conversations). Each stored conversation is
// read at the call's instant in the workspace's time zone (its status and follow-up), then filtered and ordered:
// your turn first, then follow-ups due, then the rest (domain/engagement/dm-views.ts).
import type { Kysely } from 'kysely';
import type { DmConversation } from '../../domain/engagement/dm-conversation.js';
import {
  compareDmConversations,
  dmConversationView,
  matchesDmFilter,
  type DmConversationView,
  type DmListFilter,
} from '../../domain/engagement/dm-views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { ReadModels } from '../read-models.js';
import { workspaceTimezoneOf } from '../scheduling/queries.js';
import type { DmConversationTables } from './dm-conversations-projection.js';

const tablesOf = (db: Kysely<ReadModels>) =>
  db.withTables<DmConversationTables>() as unknown as Kysely<DmConversationTables>;

/** Tool: list_dm_conversations. `status` defaults to `open` (every conversation not closed). */
export async function listDmConversations(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; status?: DmListFilter | undefined },
  now: string,
): Promise<{ items: DmConversationView[] }> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const filter = input.status ?? 'open';
  let query = tablesOf(db)
    .selectFrom('dm_conversations')
    .select('conversation')
    .where('org_id', '=', input.orgId);
  if (filter === 'closed') query = query.where('closed', '=', true);
  else if (filter !== 'all') query = query.where('closed', '=', false);
  const [rows, timezone] = await Promise.all([query.execute(), workspaceTimezoneOf(db, input.orgId)]);
  const items = rows
    .map((row) =>
      dmConversationView(
        (typeof row.conversation === 'string'
          ? JSON.parse(row.conversation)
          : row.conversation) as DmConversation,
        { now, timezone },
      ),
    )
    .filter((view) => matchesDmFilter(view, filter))
    .sort(compareDmConversations);
  return { items };
}
