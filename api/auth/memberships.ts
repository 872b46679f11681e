// The caller's current role in the workspace of their token, checked on every request (not read from the
// token), so a demotion, suspension or removal applies to tokens already issued. Answers come from the
// workspaces read model and are cached briefly in this process:
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
import { PgListener } from '../../infra/db/pg-listener.js';
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

interface Entry {
  role: Role | null;
  /** The refusal the look-up threw instead of a role. */
  refusal?: AppError;
  expiresAt: number;
}

/** Changes this process folded whose notifications have not arrived yet. */
interface Unsettled {
  pending: number;
  until: number;
}

const retryListenAfterMs = 1_000;

export class MembershipDirectory {
  private readonly entries = new Map<string, Entry>();
  private readonly unsettled = new Map<string, Unsettled>();
  private readonly listener: PgListener | null;
  private readonly ttlMs: number;
  private readonly settleMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly unsubscribe: () => void;
  /** Bumped by every invalidation, so a read that started before one does not store its answer. */
  private epoch = 0;
  private connection: Promise<void> | null = null;
  private listenFailedAt = -Infinity;

  constructor(private readonly options: MembershipDirectoryOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.settleMs = options.settleMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
    this.listener = options.url
      ? new PgListener(
          options.url,
          MEMBERSHIP_CHANNEL,
          (payload) => {
            const change = parseMembershipChange(payload);
            if (!change) return this.clear();
            this.settle(key(change.orgId, change.userId));
            this.forget(change.orgId, change.userId);
          },
          'membership-cache',
        )
      : null;
    this.unsubscribe =
      options.followLocalChanges === false
        ? () => undefined
        : onLocalMembershipChange(({ orgId, userId }) => {
            const now = this.now();
            if (this.unsettled.size >= 1_000) {
              for (const [k, u] of this.unsettled) if (u.until <= now) this.unsettled.delete(k);
            }
            const k = key(orgId, userId);
            const pending = this.isUnsettled(k) ? this.unsettled.get(k)!.pending : 0;
            this.unsettled.set(k, { pending: pending + 1, until: now + this.settleMs });
            this.forget(orgId, userId);
          });
    // Listening from the start: a change this process folds before the first request would otherwise be
    // announced before anyone listens, and its member read uncached for `settleMs` (no notification settles it).
    if (this.listener) void this.listening();
  }

  /** The user's current role in the workspace, or null when they are not an active member. */
  readonly roleOf: MembershipLookup = async (userId, orgId) => {
    const k = key(orgId, userId);
    const cacheable = (await this.listening()) && !this.isUnsettled(k);
    if (cacheable) {
      const hit = this.entries.get(k);
      if (hit && hit.expiresAt > this.now()) {
        if (hit.refusal) throw hit.refusal;
        return hit.role;
      }
    }
    const epoch = this.epoch;
    let entry: Omit<Entry, 'expiresAt'>;
    try {
      const stored = await this.options.load(userId, orgId);
      entry = { role: stored !== null && isRole(stored) ? stored : null };
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      entry = { role: null, refusal: error };
    }
    if (cacheable && epoch === this.epoch && !this.isUnsettled(k)) {
      if (this.entries.size >= this.maxEntries) this.prune();
      this.entries.set(k, { ...entry, expiresAt: this.now() + this.ttlMs });
    }
    if (entry.refusal) throw entry.refusal;
    return entry.role;
  };

  /** Drops one member's cached answer. */
  forget(orgId: string, userId: string): void {
    this.epoch += 1;
    this.entries.delete(key(orgId, userId));
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.clear();
    await this.listener?.close();
  }

  /** True while notifications arrive; a new connection first drops what was cached without them. */
  private async listening(): Promise<boolean> {
    if (!this.listener) return false;
    if (this.now() - this.listenFailedAt < retryListenAfterMs) return false;
    const ready = this.listener.ensure();
    try {
      await ready;
    } catch {
      this.listenFailedAt = this.now();
      this.connection = null;
      this.clear();
      return false;
    }
    if (ready !== this.connection) {
      // First answer on this connection: anything cached before it may have missed a notification.
      this.connection = ready;
      this.clear();
    }
    return true;
  }

  private isUnsettled(k: string): boolean {
    const unsettled = this.unsettled.get(k);
    if (unsettled === undefined) return false;
    if (unsettled.pending > 0 && unsettled.until > this.now()) return true;
    this.unsettled.delete(k);
    return false;
  }

  /** A change of this member committed (its notification arrived): one fewer to wait for. */
  private settle(k: string): void {
    const unsettled = this.unsettled.get(k);
    if (!unsettled) return;
    unsettled.pending -= 1;
    if (unsettled.pending <= 0) this.unsettled.delete(k);
  }

  private prune(): void {
    const now = this.now();
    for (const [k, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(k);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
  }
}

function key(orgId: string, userId: string): string {
  return `${orgId}:${userId}`;
}
