// The message bus port: wake-ups (notify) and durable, at-least-once work queues (enqueue/consume).
// The event store stays the source of truth; a lost bus message may delay work, never lose it.

export interface BusMessage {
  id: string;
  queue: string;
  data: unknown;
  deliveryCount: number;
}
export interface ConsumeOptions {
  ackWaitMs?: number;
  maxDeliver?: number;
  concurrency?: number;
}
export interface Consumer {
  stop(): Promise<void>;
}
export interface Bus {
  readonly name: 'in-process' | 'nats';
  /** Wake-up on a core subject: once resolved it has reached every current listener's server; lost when nobody listens. */
  notify(subject: string, data?: unknown): Promise<void>;
  onNotify(subject: string, handler: (data: unknown) => void): Promise<() => Promise<void>>;
  /**
   * Durable work, at least once; a second enqueue with the same id inside the de-duplication window is dropped.
   * Ids are de-duplicated across all queues of one bus (JetStream keys `Nats-Msg-Id` per stream), so make them
   * unique per message, not per queue.
   */
  enqueue(queue: string, message: { id: string; data: unknown }): Promise<void>;
  /** Competing consumers: ack when the handler resolves, redelivery when it throws or ackWait passes, up to maxDeliver. */
  consume(
    queue: string,
    handler: (message: BusMessage) => Promise<void>,
    options?: ConsumeOptions,
  ): Promise<Consumer>;
  close(): Promise<void>;
}
