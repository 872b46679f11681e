// Queries over the thoughts read model: a workspace's thoughts for GET ORG/thoughts (status filter, newest first,
// paged) and its active thoughts as writers see them (`activeThoughtBriefs`, the writing context's
// `activeThoughts`): new or drafted, never archived or deleted, newest first.
import type { Kysely } from 'kysely';
import type { ThoughtBrief } from '../../domain/ai/writing.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { toPage, type Page } from '../../domain/shared/page.js';
import type { Thought, ThoughtStatus } from '../../domain/thoughts/thought.js';
import { thoughtBrief, thoughtView, type ThoughtView } from '../../domain/thoughts/views.js';
import type { ReadModels } from '../read-models.js';
import type { ThoughtTables } from './thoughts-projection.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReadModels = Kysely<any>;
const tablesOf = (db: AnyReadModels | Kysely<ReadModels>) =>
  (db as AnyReadModels).withTables<ThoughtTables>() as Kysely<ThoughtTables>;

/** The list filter: `active` (new and drafted, the default), one status, or `all` (archived too). */
export const thoughtListStatuses = ['active', 'new', 'drafted', 'archived', 'all'] as const;
export type ThoughtListStatus = (typeof thoughtListStatuses)[number];

const statusesOf: Record<ThoughtListStatus, readonly ThoughtStatus[] | null> = {
  active: ['new', 'drafted'],
  new: ['new'],
  drafted: ['drafted'],
  archived: ['archived'],
  all: null,
};

const parse = (state: Thought | string | null): Thought | null =>
  typeof state === 'string' ? (JSON.parse(state) as Thought) : state;

function live(
  db: AnyReadModels | Kysely<ReadModels>,
  orgId: string,
  statuses: readonly ThoughtStatus[] | null,
) {
  let query = tablesOf(db).selectFrom('thoughts').where('org_id', '=', orgId).where('deleted', '=', false);
  if (statuses) query = query.where('status', 'in', statuses);
  return query;
}

/** Tool: list_thoughts. Newest first; archived thoughts only when asked for (`archived`, `all`). */
export async function listThoughts(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string; status?: ThoughtListStatus | undefined; page: number; limit: number },
): Promise<Page<ThoughtView>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:read', scope: 'mcp:read' });
  const statuses = statusesOf[input.status ?? 'active'];
  const [rows, count] = await Promise.all([
    live(db, input.orgId, statuses)
      .select('state')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.limit)
      .offset((input.page - 1) * input.limit)
      .execute(),
    live(db, input.orgId, statuses)
      .select((eb) => eb.fn.countAll<string>().as('total'))
      .executeTakeFirst(),
  ]);
  const items = rows.flatMap((r) => {
    const t = parse(r.state);
    return t ? [thoughtView(t)] : [];
  });
  return toPage(items, Number(count?.total ?? 0), input.page, input.limit);
}

/**
 * The workspace's active thoughts as writers see them (domain/ai/writing.ts): new or drafted, not archived, not
 * deleted, newest first, at most `limit`. Every generation of posts is grounded in them.
 */
export async function activeThoughtBriefs(
  db: Kysely<ReadModels>,
  orgId: string,
  limit: number,
): Promise<ThoughtBrief[]> {
  const rows = await live(db, orgId, statusesOf.active)
    .select('state')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.flatMap((r) => {
    const t = parse(r.state);
    return t ? [thoughtBrief(t)] : [];
  });
}
