// A workspace's busy times, kept in the instance between approvals: the times new slots must keep clear of (live
// slot claims, and scheduled or publishing posts of the read model) change far less often than approvals ask for
// them, and reading them costs a scan of the workspace's schedule.
//
// Coherence comes from two versions per workspace in `slot_versions`, read by the slot finder once it holds its
// locks (so across instances too):
// - 'claims' moves with every slot finder's claims (bumped in the statement that reads the versions, so it is
//   held until the claims commit: a finder knows its own claims and that nobody else's came in between);
// - 'posts' moves when the posts read model changes a post's busy time (scheduled or rescheduled at a time, or no
//   longer busy), except when the new time is the one a live claim of that post already holds: the finder that
//   made the claim holds it, and every other instance's snapshot was already outdated by the claim.
// A snapshot is also tied to the serving generation of the posts read model (a rebuild's switch reads anew) and
// read anew at least once a minute.
//
// Claims and posts are both busy (a claim does not hide its post's older time): a snapshot may only hold more than
// what is busy (a claim that expired since, a post's time a claimed reschedule replaced), never less, between
// versions.
import { sql, type Kysely } from 'kysely';

/** A post whose busy time the read model changed: the time before and after (null: not busy). */
export interface BusyChange {
  orgId: string;
  postId: string;
  before: string | null;
  at: string | null;
}

/**
 * Snapshots hold busy times from a day back (and live a minute): a change wholly before two days back can concern
 * none, so a rebuild replaying the past moves no version.
 */
const relevantFromMs = 2 * 86_400_000;

/** The time a post keeps busy as the read model holds it: scheduled or being published at its time. */
export function busyAtOf(post: { status: string; scheduledForUtc: string | null }): string | null {
  return post.status === 'scheduled' || post.status === 'publishing' ? post.scheduledForUtc : null;
}

/** A fresh version starts at a random number (see above). */
export function versionStart(): number {
  return Math.floor(Math.random() * 2 ** 52) + 1;
}

/**
 * Called by the posts projection in its transaction with the posts whose busy time it changed: moves the 'posts'
 * version of each workspace where a change is not the time a live claim of that post already holds.
 */
export async function noteBusyChanges<DB>(trx: Kysely<DB>, all: readonly BusyChange[]): Promise<void> {
  const from = Date.now() - relevantFromMs;
  const concerns = (time: string | null) => time !== null && Date.parse(time) >= from;
  const changes = all.filter((c) => concerns(c.at) || concerns(c.before));
  if (changes.length === 0) return;
  await sql`
    insert into slot_versions as v (org_id, source, version)
    select c.org_id, 'posts', ${versionStart()}
    from unnest(${changes.map((c) => c.orgId)}::uuid[], ${changes.map((c) => c.postId)}::uuid[],
      ${changes.map((c) => c.at)}::timestamptz[]) as c(org_id, post_id, at)
    -- No longer busy, or busy at another time than its live claim holds: the claim looked up by its key per post
    -- (a scalar subquery is never turned into a scan of every workspace's live claims).
    where c.at is null or (
      select s.slot_start from slot_claims s
      where s.org_id = c.org_id and s.post_id = c.post_id and s.expires_at > now()) is distinct from c.at
    group by c.org_id
    order by c.org_id
    on conflict (org_id, source) do update set version = v.version + 1`.execute(trx);
}

interface BusyEntry {
  at: number;
  postId: string;
}

/** One workspace's busy times as read at a version, with this instance's claims since added. */
export class BusySnapshot {
  private constructor(
    /** `claims:posts:generation`, as the next finder's read will show it if nothing else changed. */
    public key: string,
    /** When it was read (this process's clock). */
    public readonly readAt: number,
    /** The read covered busy times before this instant. */
    public readonly coversTo: number,
    /** Per platform, ordered by time. */
    private readonly byPlatform: Map<string, BusyEntry[]>,
  ) {}

  /**
   * From the finder's read: `<platform> <postId> <epoch ms>` entries joined by commas (null: nothing busy). The
   * entries are distinct (post, time) pairs.
   */
  static parse(key: string, text: string | null, readAt: number, coversTo: number): BusySnapshot {
    const byPlatform = new Map<string, BusyEntry[]>();
    if (text)
      for (const entry of text.split(',')) {
        const [platform, postId, at] = entry.split(' ');
        const entries = byPlatform.get(platform!) ?? [];
        entries.push({ at: Number(at), postId: postId! });
        byPlatform.set(platform!, entries);
      }
    for (const entries of byPlatform.values()) entries.sort((a, b) => a.at - b.at);
    return new BusySnapshot(key, readAt, coversTo, byPlatform);
  }

  /** The platform's busy times in [from, to), as epoch ms in order, leaving out the posts being placed. */
  times(platform: string, from: number, to: number, placing: ReadonlySet<string>): number[] {
    const out: number[] = [];
    for (const e of this.byPlatform.get(platform) ?? [])
      if (e.at >= from && e.at < to && !placing.has(e.postId)) out.push(e.at);
    return out;
  }

  /** This instance's claims, committed at `key`. */
  claimed(key: string, claims: ReadonlyArray<{ platform: string; postId: string; at: string }>): void {
    this.key = key;
    for (const c of claims) {
      const at = Date.parse(c.at);
      const entries = this.byPlatform.get(c.platform) ?? [];
      this.byPlatform.set(c.platform, entries);
      if (entries.some((e) => e.at === at && e.postId === c.postId)) continue;
      let i = entries.length;
      while (i > 0 && entries[i - 1]!.at > at) i--;
      entries.splice(i, 0, { at, postId: c.postId });
    }
  }
}

/** Values by key, the least recently used dropped past a bound. */
export class Lru<V> {
  private readonly values = new Map<string, V>();
  constructor(private readonly max = 1_000) {}

  get(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined) {
      this.values.delete(key);
      this.values.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.values.delete(key);
    this.values.set(key, value);
    while (this.values.size > this.max) this.values.delete(this.values.keys().next().value!);
  }

  delete(key: string): void {
    this.values.delete(key);
  }
}
