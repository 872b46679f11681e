// A KurrentDB (EventStoreDB) $all catch-up subscription read as one ordered sequence of events and markers (caught up, checkpoint).
// The client emits markers when the server sends them but events only when the reader drains its buffer; this re-orders.
import type {
  AllStreamResolvedEvent,
  AllStreamSubscription,
  KurrentDBClient,
  Filter,
  Position,
  ReadPosition,
} from '@kurrent/kurrentdb-client';

export type FeedItem =
  | { kind: 'event'; resolved: AllStreamResolvedEvent }
  | { kind: 'checkpoint'; position: Position }
  | { kind: 'caughtUp' };

/** Above this many undelivered items the gRPC stream is paused, so a slow consumer pushes back on the server. */
const HIGH_WATER = 512;
const LOW_WATER = 64;

export class OrderedFeed {
  private readonly subscription: AllStreamSubscription;
  private readonly items: FeedItem[] = [];
  /** Markers that arrived while events before them were still in the client's buffer. */
  private readonly pending: { after: number; item: FeedItem }[] = [];
  private received = 0;
  private wake: (() => void) | null = null;
  private failure: { error: unknown } | null = null;
  private ended = false;
  private paused = false;

  constructor(client: KurrentDBClient, fromPosition: ReadPosition, filter: Filter) {
    const subscription = client.subscribeToAll({
      fromPosition,
      filter: { ...filter, checkpointReached: (_s, position) => this.mark({ kind: 'checkpoint', position }) },
    });
    this.subscription = subscription;
    subscription.on('data', (resolved: AllStreamResolvedEvent) => {
      this.received += 1;
      this.items.push({ kind: 'event', resolved });
      while (this.pending[0] && this.pending[0].after <= this.received)
        this.items.push(this.pending.shift()!.item);
      if (this.items.length >= HIGH_WATER && !this.paused) {
        this.paused = true;
        subscription.pause();
      }
      this.notify();
    });
    subscription.on('caughtUp', () => this.mark({ kind: 'caughtUp' }));
    subscription.on('error', (error: Error) => {
      this.failure ??= { error };
      this.notify();
    });
    subscription.on('end', () => {
      this.ended = true;
      this.notify();
    });
    subscription.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  /** The next item in log order; null when the subscription ended; throws what the subscription failed with. */
  async next(): Promise<FeedItem | null> {
    for (;;) {
      const item = this.items.shift();
      if (item) {
        if (this.paused && this.items.length <= LOW_WATER) {
          this.paused = false;
          this.subscription.resume();
        }
        return item;
      }
      if (this.failure) throw this.failure.error;
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  async close(): Promise<void> {
    this.ended = true;
    this.notify();
    await this.subscription.unsubscribe().catch(() => undefined);
  }

  private mark(item: FeedItem): void {
    // Every event the server sent before this marker is either delivered already or still in the readable buffer.
    const after = this.received + this.subscription.readableLength;
    if (after <= this.received && this.pending.length === 0) this.items.push(item);
    else this.pending.push({ after, item });
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
