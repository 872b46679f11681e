// What the sandbox platforms hold: publications per platform and every post published more than once,
// which is how tests and operators check the pipeline publishes exactly once.
import { sql, type Kysely } from 'kysely';
import type { SandboxTables } from './migrations.js';

export interface SandboxPlatformTotals {
  platform: string;
  /** Every publication the platform accepted, deleted ones included. */
  total: number;
  published: number;
  pending: number;
  deleted: number;
}

export interface SandboxDuplicate {
  platform: string;
  postId: string;
  publications: number;
}

export interface SandboxStats {
  platforms: SandboxPlatformTotals[];
  /** Posts with more than one publication (a pending one counts: it becomes a post on the platform). */
  duplicates: SandboxDuplicate[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function sandboxStats(db: Kysely<any>): Promise<SandboxStats> {
  const sandbox = db as Kysely<SandboxTables>;
  // A pending row past its time is published even if nobody has looked yet.
  const totals = await sandbox
    .selectFrom('sandbox_publications')
    .select((eb) => [
      'platform',
      eb.fn.countAll<string>().as('total'),
      sql<string>`count(*) filter (where status = 'published' or (status = 'pending' and ready_at <= now()))`.as(
        'published',
      ),
      sql<string>`count(*) filter (where status = 'pending' and ready_at > now())`.as('pending'),
      sql<string>`count(*) filter (where status = 'deleted')`.as('deleted'),
    ])
    .groupBy('platform')
    .orderBy('platform')
    .execute();
  const duplicates = await sandbox
    .selectFrom('sandbox_publications')
    .select((eb) => ['platform', 'post_id', eb.fn.countAll<string>().as('publications')])
    .groupBy(['platform', 'post_id'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('platform')
    .orderBy('post_id')
    .execute();
  return {
    platforms: totals.map((t) => ({
      platform: t.platform,
      total: Number(t.total),
      published: Number(t.published),
      pending: Number(t.pending),
      deleted: Number(t.deleted),
    })),
    duplicates: duplicates.map((d) => ({
      platform: d.platform,
      postId: d.post_id,
      publications: Number(d.publications),
    })),
  };
}

/** Publications of one post, oldest first (tests assert exactly one). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function sandboxPublicationsOf(db: Kysely<any>, postId: string) {
  return (db as Kysely<SandboxTables>)
    .selectFrom('sandbox_publications')
    .select([
      'platform',
      'account_external_id',
      'idempotency_key',
      'external_id',
      'url',
      'text',
      'status',
      'created_at',
    ])
    .where('post_id', '=', postId)
    .orderBy('id')
    .execute();
}
