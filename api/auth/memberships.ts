// The caller's current role in the workspace of their token, checked on every request (not read from the
// token), so a demotion, suspension or removal applies to tokens already issued. Answers come from the
// workspaces read model and are cached briefly in this process (infra/db/notified-cache.ts):
// - every process LISTENs on the channel the workspaces projection notifies in the transaction that changes a
//   member, and drops that member's entry when the notification arrives (at the commit);
// - the process folding the change also hears of it before the commit (membership-changes.ts) and reads that
//   member from the database, not the cache, until the change's notification arrives (at most `settleMs`), so
//   its own next request sees the change with no race against the notification;
// - while the LISTEN connection is down nothing is cached, and on (re)connecting everything is dropped, since
//   notifications sent meanwhile are lost;
// - an entry lives at most `ttlMs`, which bounds a lost notification PostgreSQL did not report as an error.
// A refusal the look-up explains (403 `membership_suspended`, 410 `workspace_deleted`) is cached like a role and
// thrown to every caller, so each entry point answers it alike.
import { AppError } from '../../domain/shared/errors.js';
import { NotifiedCache } from '../../infra/db/notified-cache.js';
import { isRole, type Role } from '../../domain/workspaces/roles.js';
import {
  MEMBERSHIP_CHANNEL,
  onLocalMembershipChange,
  parseMembershipChange,
} from '../../projections/workspaces/membership-changes.js';

/**
 * The current role of an active member, null for anyone not a member (removed, never one); throws the refusal
 * for a suspended member (403 `membership_suspended`) or a deleted workspace (410 `workspace_deleted`).
 */
export type MembershipLookup = (userId: string, orgId: string) => Promise<Role | null>;

export interface MembershipDirectoryOptions {
  /** Reads the read model (uncached); may throw an AppError that explains a refusal (it is cached too). */
  load: (userId: string, orgId: string) => Promise<string | null>;
  /** Connection string for LISTEN; without it nothing is cached. */
  url?: string;
  /** Longest life of a cached answer. */
  ttlMs?: number;
  /**
   * Longest time a member whose change this process folds is read from the database only, waiting for the
   * change's notification (which ends it sooner).
   */
  settleMs?: number;
  /** Whether to hear this process's own folds before their commit (tests of other instances turn it off). */
  followLocalChanges?: boolean;
  /** Upper bound of cached entries; beyond it expired ones are dropped, then all. */
  maxEntries?: number;
  now?: () => number;
}

/** A cached answer: the role, or the refusal the look-up threw instead. */
interface Answer {
  role: Role | null;
  refusal?: AppError;
}

export class MembershipDirectory {
  private readonly cache: NotifiedCache<Answer>;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: MembershipDirectoryOptions) {
    this.cache = new NotifiedCache<Answer>({
      channel: MEMBERSHIP_CHANNEL,
      name: 'membership-cache',
      keyOf: (payload) => {
        const change = parseMembershipChange(payload);
        return change ? key(change.orgId, change.userId) : null;
      },
      ttlMs: options.ttlMs,
      settleMs: options.settleMs,
      maxEntries: options.maxEntries,
      now: options.now,
    });
    this.unsubscribe =
      options.followLocalChanges === false
        ? () => undefined
        : onLocalMembershipChange(({ orgId, userId }) => this.cache.changing(key(orgId, userId)));
    // Listening from the start: a change this process folds before the first request would otherwise be
    // announced before anyone listens, and its member read uncached for `settleMs` (no notification settles it).
    if (options.url) void this.cache.listen(options.url);
  }

  /** The user's current role in the workspace, or null when they are not an active member. */
  readonly roleOf: MembershipLookup = async (userId, orgId) => {
    const answer = await this.cache.get(key(orgId, userId), async () => {
      try {
        const stored = await this.options.load(userId, orgId);
        return { role: stored !== null && isRole(stored) ? stored : null };
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return { role: null, refusal: error };
      }
    });
    if (answer.refusal) throw answer.refusal;
    // "Not a member" is not kept: a membership another process just recorded (the CLI's `token --workspace`)
    // may not be folded here yet, and no notification of this process's fold would drop a kept "no".
    if (answer.role === null) this.cache.forget(key(orgId, userId));
    return answer.role;
  };

  /** Drops one member's cached answer. */
  forget(orgId: string, userId: string): void {
    this.cache.forget(key(orgId, userId));
  }

  clear(): void {
    this.cache.clear();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.cache.close();
  }
}

function key(orgId: string, userId: string): string {
  return `${orgId}:${userId}`;
}
