// A per-process cache of read-model answers that PostgreSQL NOTIFY keeps current, shared by the membership
// role cache (api/auth/memberships.ts) and the billing access cache (commands/billing/access.ts):
// - it LISTENs (from `listen`) on the channel a projection notifies in the transaction that changes a row, and
//   drops the key a notification names when it arrives (at the commit), everything for one naming none;
// - the process folding a change hears of it before the commit (`changing`) and reads that key from the database,
//   not the cache, until the change's notification arrives (at most `settleMs`), so its own next read sees it;
// - while the LISTEN connection is down or not started nothing is cached, and on (re)connecting everything is
//   dropped, since notifications sent meanwhile are lost;
// - an entry lives at most `ttlMs`, which bounds a lost notification PostgreSQL did not report as an error;
// - a read that started before an invalidation does not store its answer.
import { PgListener } from './pg-listener.js';

export interface NotifiedCacheOptions {
  /** The channel the projection notifies. */
  channel: string;
  /** The LISTEN connection's name (its application_name). */
  name: string;
  /** The key a notification's payload names, or null when it names none (then everything is dropped). */
  keyOf: (payload: string) => string | null;
  /** Longest life of a cached answer. */
  ttlMs?: number | undefined;
  /** Longest time a key changed by this process is read uncached, waiting for the change's notification. */
  settleMs?: number | undefined;
  /** Upper bound of cached entries; beyond it expired ones are dropped, then all. */
  maxEntries?: number | undefined;
  now?: (() => number) | undefined;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

/** Changes this process folded whose notifications have not arrived yet. */
interface Unsettled {
  pending: number;
  until: number;
}

const retryListenAfterMs = 1_000;
const maxUnsettled = 1_000;

export class NotifiedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly unsettled = new Map<string, Unsettled>();
  private listener: PgListener | null = null;
  private connection: Promise<void> | null = null;
  private listenFailedAt = -Infinity;
  /** Bumped by every invalidation, so a read that started before one does not store its answer. */
  private epoch = 0;
  private readonly ttlMs: number;
  private readonly settleMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(private readonly options: NotifiedCacheOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.settleMs = options.settleMs ?? 10_000;
    this.maxEntries = options.maxEntries ?? 50_000;
    this.now = options.now ?? Date.now;
  }

  /** Starts caching: LISTENs on the channel (until `close`); resolves once the first attempt is over. */
  async listen(url: string): Promise<void> {
    if (this.listener) return;
    this.listener = new PgListener(
      url,
      this.options.channel,
      (payload) => {
        const key = payload ? this.options.keyOf(payload) : null;
        if (key === null) return this.clear();
        this.settle(key);
        this.forget(key);
      },
      this.options.name,
    );
    await this.listening();
  }

  /** The cached answer for `key`, else `load`'s (stored when it may be); what `load` throws is not cached. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    const cacheable = (await this.listening()) && !this.isUnsettled(key);
    if (cacheable) {
      const hit = this.entries.get(key);
      if (hit && hit.expiresAt > this.now()) return hit.value;
    }
    const epoch = this.epoch;
    const value = await load();
    if (cacheable && epoch === this.epoch && !this.isUnsettled(key)) {
      if (this.entries.size >= this.maxEntries) this.prune();
      this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    }
    return value;
  }

  /**
   * This process is folding a change of `key` (before its commit): drop it, and read it uncached until the
   * change's notification arrives or `settleMs` passes.
   */
  changing(key: string): void {
    const now = this.now();
    if (this.unsettled.size >= maxUnsettled) {
      for (const [k, u] of this.unsettled) if (u.until <= now) this.unsettled.delete(k);
    }
    const pending = this.isUnsettled(key) ? (this.unsettled.get(key)?.pending ?? 0) : 0;
    this.unsettled.set(key, { pending: pending + 1, until: now + this.settleMs });
    this.forget(key);
  }

  /** Drops one key's cached answer. */
  forget(key: string): void {
    this.epoch += 1;
    this.entries.delete(key);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  /** Stops listening and drops everything; later reads are not cached (until `listen` again). */
  async close(): Promise<void> {
    this.clear();
    const listener = this.listener;
    this.listener = null;
    this.connection = null;
    await listener?.close();
  }

  /** True while notifications arrive; a new connection first drops what was cached without them. */
  private async listening(): Promise<boolean> {
    const listener = this.listener;
    if (!listener) return false;
    if (this.now() - this.listenFailedAt < retryListenAfterMs) return false;
    const ready = listener.ensure();
    try {
      await ready;
    } catch {
      this.listenFailedAt = this.now();
      this.connection = null;
      this.clear();
      return false;
    }
    if (this.listener !== listener) return false;
    if (ready !== this.connection) {
      // First answer on this connection: anything cached before it may have missed a notification.
      this.connection = ready;
      this.clear();
    }
    return true;
  }

  private isUnsettled(key: string): boolean {
    const unsettled = this.unsettled.get(key);
    if (unsettled === undefined) return false;
    if (unsettled.pending > 0 && unsettled.until > this.now()) return true;
    this.unsettled.delete(key);
    return false;
  }

  /** A change of this key committed (its notification arrived): one fewer to wait for. */
  private settle(key: string): void {
    const unsettled = this.unsettled.get(key);
    if (!unsettled) return;
    unsettled.pending -= 1;
    if (unsettled.pending <= 0) this.unsettled.delete(key);
  }

  private prune(): void {
    const now = this.now();
    for (const [k, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(k);
    if (this.entries.size >= this.maxEntries) this.entries.clear();
  }
}
