// One renewal statement for all the leases a runner's loops hold, every interval, instead of each loop waking to
// renew its own: loops sleep until an append wakes them (or their long safety poll), however short the lease.
// A loop in the middle of a batch is renewed only while the batch is young (a stuck batch lets its lease lapse,
// as before, so another instance can take over); a lease the statement did not find is lost, and its loop is told.
import { sleep } from './sleep.js';

interface Held {
  busySince: number | null;
  lost: boolean;
  onLost: () => void;
}

export class LeaseHeartbeat {
  private readonly held = new Map<string, Held>();
  private loop: Promise<void> | null = null;

  /**
   * @param renew renews the leases named (keys as the runner chose them) and answers the ones still held.
   * @param intervalMs how often; a third of the lease's time to live leaves two chances before it lapses.
   */
  constructor(
    private readonly renew: (keys: readonly string[]) => Promise<ReadonlySet<string>>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(signal: AbortSignal): void {
    this.loop ??= (async () => {
      while (!signal.aborted) {
        await sleep(this.intervalMs, signal);
        if (signal.aborted) break;
        await this.beat().catch(this.onError);
      }
    })();
  }

  async stopped(): Promise<void> {
    await this.loop;
    this.loop = null;
  }

  /** The loop holds the lease from now; `onLost` is called when a renewal no longer finds it. */
  hold(key: string, onLost: () => void): void {
    this.held.set(key, { busySince: null, lost: false, onLost });
  }

  release(key: string): void {
    this.held.delete(key);
  }

  /** A batch starts (true) or ends (false). */
  busy(key: string, busy: boolean): void {
    const held = this.held.get(key);
    if (held) held.busySince = busy ? Date.now() : null;
  }

  lost(key: string): boolean {
    return this.held.get(key)?.lost ?? false;
  }

  /** One renewal of the leases whose loops are idle or whose batch began less than an interval ago. */
  async beat(): Promise<void> {
    const now = Date.now();
    const keys = [...this.held]
      .filter(([, h]) => !h.lost && (h.busySince === null || now - h.busySince < this.intervalMs))
      .map(([key]) => key);
    if (keys.length === 0) return;
    const kept = await this.renew(keys);
    for (const key of keys) {
      const held = this.held.get(key);
      if (!held || kept.has(key)) continue;
      held.lost = true;
      held.onLost();
    }
  }
}
