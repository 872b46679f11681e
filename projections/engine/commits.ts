// Wake-ups on projection commits: background workers that read a read model (the publishing sweep reads posts,
// the mailer reads notifications) sleep until a projection they read commits, instead of polling the read model.
// One LISTEN connection per process on the channel every projection batch notifies in its transaction, so a
// wake-up arrives once the batch's rows are visible.
import { Wakeups } from '../../infra/async/wakeups.js';
import { PgListener } from '../../infra/db/pg-listener.js';
import { CHECKPOINT_CHANNEL, parseCheckpointChange } from './catalog.js';

/** How soon a waiter looks again while the LISTEN connection is down (notifications cannot arrive then). */
export const UNLISTENED_POLL_MS = 1_000;

export interface ProjectionCommitWaits {
  /**
   * Resolves when one of `projections` commits a batch (or a rebuild switches), when the LISTEN connection was
   * (re)opened (what it missed while down is unknown), after `timeoutMs`, or when the signal aborts. While the
   * connection cannot be opened, after at most UNLISTENED_POLL_MS.
   */
  wait(projections: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<void>;
}

export class ProjectionCommits implements ProjectionCommitWaits {
  private readonly listener: PgListener;
  private readonly wakeups = new Wakeups();
  /** Per projection name, a count of its commits seen; `connections` counts (re)connections and drops. */
  private readonly commits = new Map<string, number>();
  private connections = 0;
  private closed = false;

  constructor(url: string) {
    this.listener = new PgListener(
      url,
      CHECKPOINT_CHANNEL,
      (payload) => {
        const change = parseCheckpointChange(payload);
        // A payload of another shape (an older version's) names nothing we can match: wake everyone.
        if (change === null) this.connections += 1;
        else this.commits.set(change.name, (this.commits.get(change.name) ?? 0) + 1);
        this.wakeups.wakeAll();
      },
      'projection-commits',
      () => {
        this.connections += 1;
        this.wakeups.wakeAll();
      },
    );
  }

  /**
   * Call it before reading the read model (await it after): commits from the call on count, so one that lands
   * while the caller reads still wakes it.
   */
  async wait(projections: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const seen = this.seen(projections);
    const deadline = Date.now() + timeoutMs;
    if (this.closed || signal?.aborted) return;
    const listening = await this.listener.ensure().then(
      () => true,
      () => false,
    );
    for (;;) {
      if (this.closed || signal?.aborted || this.seen(projections) !== seen) return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      // Without a connection nothing will wake us: look again soon (the caller's next wait tries to reconnect).
      if (!listening) return this.wakeups.wait(Math.min(left, UNLISTENED_POLL_MS), signal);
      await this.wakeups.wait(left, signal);
    }
  }

  private seen(projections: readonly string[]): number {
    let sum = this.connections;
    for (const name of projections) sum += this.commits.get(name) ?? 0;
    return sum;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeups.wakeAll();
    await this.listener.close();
  }
}
