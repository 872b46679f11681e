// Queries over the tags read model: a workspace's tags by name (for a caller), one tag, and which of some ids
// are its tags. Use cases that take tag ids use existingTagIds to refuse unknown ones.
import { sql, type Kysely } from 'kysely';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { TagView } from '../../domain/tags/views.js';
import type { ReadModels, TagsTable } from '../read-models.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function tagView(row: TagsTable): TagView {
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    color: row.color,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The workspace's tags sorted by name, case-insensitively (id breaks ties between e.g. `a` and `A`). */
export async function listTags(
  db: Kysely<ReadModels>,
  caller: Caller,
  input: { orgId: string },
): Promise<TagView[]> {
  authorize(caller, { orgId: input.orgId, permission: 'posts:read', scope: 'mcp:read' });
  const rows = await db
    .selectFrom('tags')
    .selectAll()
    .where('org_id', '=', input.orgId)
    .orderBy(sql`lower(name)`)
    .orderBy('name')
    .orderBy('id')
    .execute();
  return rows.map(tagView);
}

export async function getTag(
  db: Kysely<ReadModels>,
  orgId: string,
  tagId: string,
): Promise<TagsTable | null> {
  if (!uuidPattern.test(tagId)) return null;
  return (
    (await db
      .selectFrom('tags')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('id', '=', tagId)
      .executeTakeFirst()) ?? null
  );
}

/** Those of `ids` that are tags of the workspace; ids that are not uuids are simply not among them. */
export async function existingTagIds(
  db: Kysely<ReadModels>,
  orgId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const candidates = [...new Set(ids.filter((id) => uuidPattern.test(id)))];
  if (candidates.length === 0) return new Set();
  const rows = await db
    .selectFrom('tags')
    .select('id')
    .where('org_id', '=', orgId)
    .where('id', 'in', candidates)
    .execute();
  // PostgreSQL answers uuids lower-case; give back the caller's spelling so `has(id)` works as they expect.
  const found = new Set(rows.map((r) => r.id.toLowerCase()));
  return new Set(candidates.filter((id) => found.has(id.toLowerCase())));
}
