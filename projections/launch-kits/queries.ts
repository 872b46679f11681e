// Queries over the launch kits read model: a workspace's kits newest first (list items), one kit, and the current
// status and text of the posts its steps drafted, read from the post groups read model.
import type { Kysely } from 'kysely';
import type { LaunchKit } from '../../domain/launch-kits/launch-kit.js';
import type { GroupStatus } from '../../domain/post-groups/state.js';
import type { ReadModels } from '../read-models.js';
import type { LaunchKitTables } from './launch-kits-projection.js';

const tables = (db: Kysely<ReadModels>) => db.withTables<LaunchKitTables>();

export interface LaunchKitRow {
  kit: LaunchKit;
  stepCount: number;
  doneCount: number;
}

/** A page of the workspace's kits, newest first, and how many it has. */
export async function listLaunchKits(
  db: Kysely<ReadModels>,
  orgId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: LaunchKitRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    tables(db)
      .selectFrom('launch_kits')
      .select(['kit', 'step_count', 'done_count'])
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    tables(db)
      .selectFrom('launch_kits')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({ kit: r.kit, stepCount: r.step_count, doneCount: r.done_count })),
    total: Number(count.n),
  };
}

export async function findLaunchKit(
  db: Kysely<ReadModels>,
  orgId: string,
  kitId: string,
): Promise<LaunchKit | null> {
  const row = await tables(db)
    .selectFrom('launch_kits')
    .select('kit')
    .where('id', '=', kitId)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
  return row?.kit ?? null;
}

/** The status of each group and the text of its first post, by group id (groups gone are missing). */
export async function draftedPostsOf(
  db: Kysely<ReadModels>,
  orgId: string,
  groupIds: readonly string[],
): Promise<Map<string, { status: GroupStatus; text: string | null }>> {
  if (groupIds.length === 0) return new Map();
  const [groups, posts] = await Promise.all([
    db
      .selectFrom('post_groups')
      .select(['id', 'status'])
      .where('org_id', '=', orgId)
      .where('id', 'in', [...groupIds])
      .execute(),
    db
      .selectFrom('posts')
      .select(['group_id', 'body'])
      .where('org_id', '=', orgId)
      .where('group_id', 'in', [...groupIds])
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  const texts = new Map<string, string>();
  for (const p of posts) if (!texts.has(p.group_id)) texts.set(p.group_id, p.body.contentText);
  return new Map(
    groups.map((g) => [g.id, { status: g.status as GroupStatus, text: texts.get(g.id) ?? null }]),
  );
}
