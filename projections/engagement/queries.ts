// Queries over the DM conversations read model: GET ORG/dms (list_dm_conversations). Each stored conversation is
// read at the call's instant in the workspace's time zone (its status and follow-up), then filtered and ordered:
// your turn first, then follow-ups due, then the rest (domain/engagement/dm-views.ts); and the reply inbox, GET
// ORG/engagement (list_reply_inbox): its filters over the inbox_items read model, newest first, paged.
import type { Kysely } from 'kysely';
import type { DmConversation } from '../../domain/engagement/dm-conversation.js';
import {
  compareDmConversations,
  dmConversationView,
  matchesDmFilter,
  type DmConversationView,
  type DmListFilter,
} from '../../domain/engagement/dm-views.js';
import {
  inboxItemView,
  type InboxItem,
  type InboxItemView,
  type InboxKind,
  type InboxPlatform,
} from '../../domain/engagement/inbox-item.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { NotFound } from '../../domain/shared/errors.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { ReadModels } from '../read-models.js';
import { workspaceTimezoneOf } from '../scheduling/queries.js';
import type { DmConversationTables } from './dm-conversations-projection.js';
import type { InboxItemTables } from './inbox-projection.js';

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

// ---- The reply inbox ----

export const inboxListStatuses = ['open', 'sent', 'dismissed', 'all'] as const;
export type InboxListStatus = (typeof inboxListStatuses)[number];

export interface InboxListInput {
  orgId: string;
  /** Default `open`: waiting on a decision (new, drafted, failed). `sent` holds the sends under way too. */
  status?: InboxListStatus | undefined;
  kind?: InboxKind | 'all' | undefined;
  platform?: InboxPlatform | 'all' | undefined;
  feedId?: string | undefined;
  page: number;
  limit: number;
}

const inboxTablesOf = (db: Kysely<ReadModels>) =>
  db.withTables<InboxItemTables>() as unknown as Kysely<InboxItemTables>;
const parseItem = (item: InboxItem | string): InboxItem =>
  typeof item === 'string' ? (JSON.parse(item) as InboxItem) : item;

/** Tool: list_reply_inbox. Newest post first, paged. */
export async function listReplyInbox(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: InboxListInput,
): Promise<Page<InboxItemView>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const status = input.status ?? 'open';
  let query = inboxTablesOf(db).selectFrom('inbox_items').where('org_id', '=', input.orgId);
  if (status !== 'all') query = query.where('bucket', '=', status);
  if (input.kind && input.kind !== 'all') query = query.where('kind', '=', input.kind);
  if (input.platform && input.platform !== 'all') query = query.where('platform', '=', input.platform);
  if (input.feedId) query = query.where('feed_id', '=', input.feedId);
  // The total: counted over the feed's rows for a feed (a small part of the inbox, indexed), else summed from
  // the counts the projection keeps per bucket, platform and kind.
  let counts = inboxTablesOf(db)
    .selectFrom('inbox_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('n'), eb.lit(0)).as('total'))
    .where('org_id', '=', input.orgId);
  if (status !== 'all') counts = counts.where('bucket', '=', status);
  if (input.kind && input.kind !== 'all') counts = counts.where('kind', '=', input.kind);
  if (input.platform && input.platform !== 'all') counts = counts.where('platform', '=', input.platform);
  const [rows, count] = await Promise.all([
    query
      .select('item')
      .orderBy('sort_at', 'desc')
      .orderBy('item_id', 'desc')
      .limit(input.limit)
      .offset((input.page - 1) * input.limit)
      .execute(),
    input.feedId
      ? query.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirst()
      : counts.executeTakeFirst(),
  ]);
  return toPage(
    rows.map((r) => inboxItemView(parseItem(r.item))),
    Number(count?.total ?? 0),
    input.page,
    input.limit,
  );
}

/** GET ORG/engagement/{itemId}: one item of the workspace, whatever its status; another workspace's is not found. */
export async function getReplyInboxItem(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; itemId: string },
): Promise<InboxItemView> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const [item] = await inboxItemsByIds(db, input.orgId, [input.itemId]);
  if (!item) throw new NotFound('Inbox item not found', 'inbox_item_not_found');
  return inboxItemView(item);
}

/** The items of these ids the workspace has (refresh answers the items it found, as stored). */
export async function inboxItemsByIds(
  db: Kysely<ReadModels>,
  orgId: string,
  itemIds: readonly string[],
): Promise<InboxItem[]> {
  if (itemIds.length === 0) return [];
  const rows = await inboxTablesOf(db)
    .selectFrom('inbox_items')
    .select('item')
    .where('org_id', '=', orgId)
    .where('item_id', 'in', itemIds)
    .execute();
  return rows.map((r) => parseItem(r.item));
}
