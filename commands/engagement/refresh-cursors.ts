// Where each X source of a workspace's reply inbox stopped reading (inbox_refresh_state.cursors): the newest post
// id seen per source, keyed by what the source reads (`mention`, `search:<query>`), passed as X's `since_id` on
// the next refresh so posts read before are neither read (nor paid for) again. A source whose query changed has a
// new key and starts afresh; keys of sources no longer read are dropped on the next full refresh.
import { sql, type Kysely } from 'kysely';

export type RefreshCursors = Record<string, string>;

/** X post ids are 64-bit integers written as digits: the larger is the newer. */
export function newerId(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  if (!/^[0-9]+$/.test(a) || !/^[0-9]+$/.test(b)) return b;
  return BigInt(a) >= BigInt(b) ? a : b;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function readRefreshCursors(db: Kysely<any>, orgId: string): Promise<RefreshCursors> {
  const { rows } = await sql<{ cursors: RefreshCursors | string }>`
    select cursors from inbox_refresh_state where org_id = ${orgId}`.execute(db);
  const cursors = rows[0]?.cursors;
  if (!cursors) return {};
  return typeof cursors === 'string' ? (JSON.parse(cursors) as RefreshCursors) : cursors;
}

/**
 * Saves the cursors read: each key moves only forward (a slower refresh finishing after a faster one keeps the
 * newer id); with `keep`, keys not among them are dropped (sources no longer read).
 */
export async function saveRefreshCursors(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  orgId: string,
  read: RefreshCursors,
  keep: readonly string[] | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`
      insert into inbox_refresh_state (org_id) values (${orgId}) on conflict (org_id) do nothing`.execute(
      trx,
    );
    const { rows } = await sql<{ cursors: RefreshCursors | string }>`
      select cursors from inbox_refresh_state where org_id = ${orgId} for update`.execute(trx);
    const raw = rows[0]?.cursors ?? {};
    const saved = typeof raw === 'string' ? (JSON.parse(raw) as RefreshCursors) : raw;
    const next: RefreshCursors = {};
    for (const [key, id] of Object.entries(saved)) if (keep === null || keep.includes(key)) next[key] = id;
    for (const [key, id] of Object.entries(read)) {
      const newest = newerId(next[key], id);
      if (newest) next[key] = newest;
    }
    await sql`
      update inbox_refresh_state set cursors = ${JSON.stringify(next)}::jsonb, updated_at = now()
      where org_id = ${orgId}`.execute(trx);
  });
}
