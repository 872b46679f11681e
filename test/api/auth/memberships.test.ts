// The membership cache behind the per-request role check: answers are cached, a change committed by any
// process reaches every process through its notification, the process folding a change never answers from
// the cache until that change is committed, nothing is cached without the LISTEN connection, and a new
// connection starts from an empty cache.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { MembershipDirectory } from '../../../api/auth/memberships.js';
import { Forbidden } from '../../../domain/shared/errors.js';
import { announceMembershipChange } from '../../../projections/workspaces/membership-changes.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';

interface Db {
  members: { org_id: string; user_id: string; role: string };
}

let database: TestDatabase<Db>;
let db: Kysely<Db>;
const directories: MembershipDirectory[] = [];

beforeAll(async () => {
  database = await createTestDatabase<Db>();
  db = database.db;
  await sql`create table members (org_id text, user_id text, role text, primary key (org_id, user_id))`.execute(
    db,
  );
});
afterAll(async () => {
  for (const directory of directories) await directory.close();
  await database?.drop();
});

/** A directory over the `members` table counting its reads. */
function directory(options: { listen?: boolean; followLocalChanges?: boolean } = {}) {
  const reads = { count: 0 };
  const made = new MembershipDirectory({
    load: async (userId, orgId) => {
      reads.count += 1;
      const row = await db
        .selectFrom('members')
        .select('role')
        .where('org_id', '=', orgId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      // As the workspaces query explains a suspension: a refusal thrown, not a role.
      if (row?.role === 'suspended') throw new Forbidden('Suspended', 'membership_suspended');
      return row?.role ?? null;
    },
    ...(options.listen === false ? {} : { url: database.url }),
    ...(options.followLocalChanges !== undefined ? { followLocalChanges: options.followLocalChanges } : {}),
    ttlMs: 600_000,
  });
  directories.push(made);
  return { directory: made, reads };
}

async function member(role: string) {
  const m = { orgId: randomUUID(), userId: randomUUID() };
  await db.insertInto('members').values({ org_id: m.orgId, user_id: m.userId, role }).execute();
  return m;
}

/** Changes a member as a projection fold does: the announcement in the same transaction. */
async function change(
  m: { orgId: string; userId: string },
  role: string | null,
  beforeCommit?: () => Promise<void>,
) {
  await db.transaction().execute(async (trx) => {
    await announceMembershipChange(trx, m);
    if (role === null) {
      await trx.deleteFrom('members').where('org_id', '=', m.orgId).where('user_id', '=', m.userId).execute();
    } else {
      await trx
        .updateTable('members')
        .set({ role })
        .where('org_id', '=', m.orgId)
        .where('user_id', '=', m.userId)
        .execute();
    }
    await beforeCommit?.();
  });
}

describe('MembershipDirectory', () => {
  test('caches answers; a change committed elsewhere reaches it through the notification, long before the TTL', async () => {
    // Another instance: it does not fold the change itself, so only the notification can tell it.
    const { directory: other, reads } = directory({ followLocalChanges: false });
    const m = await member('admin');
    expect(await other.roleOf(m.userId, m.orgId)).toBe('admin');
    expect(await other.roleOf(m.userId, m.orgId)).toBe('admin');
    expect(reads.count).toBe(1);

    await change(m, 'viewer');
    await vi.waitFor(async () => expect(await other.roleOf(m.userId, m.orgId)).toBe('viewer'), {
      timeout: 5_000,
      interval: 10,
    });
    await change(m, null);
    await vi.waitFor(async () => expect(await other.roleOf(m.userId, m.orgId)).toBeNull(), {
      timeout: 5_000,
      interval: 10,
    });
  });

  test('the process folding a change reads that member from the database until it commits, then sees it at once', async () => {
    const { directory: local, reads } = directory();
    const m = await member('admin');
    expect(await local.roleOf(m.userId, m.orgId)).toBe('admin');
    await change(m, 'viewer', async () => {
      // Announced, not committed: the committed answer, read afresh and not kept.
      const before = reads.count;
      expect(await local.roleOf(m.userId, m.orgId)).toBe('admin');
      expect(await local.roleOf(m.userId, m.orgId)).toBe('admin');
      expect(reads.count).toBe(before + 2);
    });
    // Committed: the very next answer is the new role, with no wait for the notification.
    expect(await local.roleOf(m.userId, m.orgId)).toBe('viewer');
    // Once the notification has arrived, answers are cached again.
    await vi.waitFor(
      async () => {
        const before = reads.count;
        await local.roleOf(m.userId, m.orgId);
        expect(reads.count).toBe(before);
      },
      { timeout: 5_000, interval: 10 },
    );
  });

  test('a refusal the look-up explains (a suspension) is cached and thrown alike until a change drops it', async () => {
    const { directory: other, reads } = directory({ followLocalChanges: false });
    const m = await member('suspended');
    await expect(other.roleOf(m.userId, m.orgId)).rejects.toMatchObject({ code: 'membership_suspended' });
    await expect(other.roleOf(m.userId, m.orgId)).rejects.toBeInstanceOf(Forbidden);
    expect(reads.count).toBe(1);
    await change(m, 'editor');
    await vi.waitFor(async () => expect(await other.roleOf(m.userId, m.orgId)).toBe('editor'), {
      timeout: 5_000,
      interval: 10,
    });
  });

  test('caches nothing without a LISTEN connection', async () => {
    const { directory: deaf, reads } = directory({ listen: false });
    const m = await member('editor');
    for (let i = 0; i < 3; i++) expect(await deaf.roleOf(m.userId, m.orgId)).toBe('editor');
    expect(reads.count).toBe(3);
    expect(await deaf.roleOf(m.userId, randomUUID())).toBeNull();
  });

  test('a lost LISTEN connection empties the cache when it is opened again (notifications meanwhile are lost)', async () => {
    const { directory: other, reads } = directory({ followLocalChanges: false });
    const m = await member('owner');
    expect(await other.roleOf(m.userId, m.orgId)).toBe('owner');
    expect(await other.roleOf(m.userId, m.orgId)).toBe('owner');
    expect(reads.count).toBe(1);

    // The connection dies; a change is committed while nobody listens (no announcement at all here).
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = 'membership-cache' and datname = current_database()`.execute(db);
    await db.updateTable('members').set({ role: 'viewer' }).where('org_id', '=', m.orgId).execute();
    await vi.waitFor(async () => expect(await other.roleOf(m.userId, m.orgId)).toBe('viewer'), {
      timeout: 5_000,
      interval: 50,
    });
  });
});
