// The embedded bus: listeners for wake-ups and in-memory work queues with the same delivery rules as the
// NATS adapter (de-duplication window, ack/redelivery, ackWait, maxDeliver, competing consumers).
import type { Logger } from '../logging/logger.js';
import {
  defaultRedeliveryDelay,
  resolveConsumeOptions,
  type RedeliveryDelay,
  type ResolvedConsumeOptions,
} from './consume-options.js';
import { decodeData, encodeData } from './envelope.js';
import type { Bus, BusMessage, Consumer, ConsumeOptions } from './port.js';
import { assertQueueName, assertSubject, assertSubjectFilter, subjectMatches } from './subjects.js';

export type BusLogger = Pick<Logger, 'warn' | 'error'>;

export interface InProcessBusOptions {
  /** How long an enqueued id is remembered for de-duplication; JetStream's default window is 2 min. */
  duplicateWindowMs?: number;
  redeliveryDelay?: RedeliveryDelay;
  logger?: BusLogger;
  now?: () => number;
}

interface Entry {
  seq: number;
  id: string;
  queue: string;
  body: string;
  deliveryCount: number;
  availableAt: number;
  /** The live delivery, if any; a handler settling for an older delivery finds a different token. */
  delivery: object | undefined;
  acked: boolean;
}

interface LocalConsumer {
  options: ResolvedConsumeOptions;
  handler: (message: BusMessage) => Promise<void>;
  inFlight: Set<Promise<void>>;
  stopped: boolean;
}

interface QueueState {
  ready: Entry[];
  consumers: LocalConsumer[];
  /** Round-robin start, so competing consumers share the work. */
  next: number;
  wakeTimer: NodeJS.Timeout | undefined;
}

const noopLogger: BusLogger = { warn: () => undefined, error: () => undefined };

export class InProcessBus implements Bus {
  readonly name = 'in-process' as const;
  private readonly listeners = new Set<{ filter: string; handler: (data: unknown) => void }>();
  private readonly queues = new Map<string, QueueState>();
  private readonly seen = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly duplicateWindowMs: number;
  private readonly redeliveryDelay: RedeliveryDelay;
  private readonly logger: BusLogger;
  private readonly now: () => number;
  private seq = 0;
  private closed = false;

  constructor(options: InProcessBusOptions = {}) {
    this.duplicateWindowMs = options.duplicateWindowMs ?? 120_000;
    this.redeliveryDelay = options.redeliveryDelay ?? defaultRedeliveryDelay;
    this.logger = options.logger ?? noopLogger;
    this.now = options.now ?? Date.now;
  }

  async notify(subject: string, data?: unknown): Promise<void> {
    this.assertOpen();
    assertSubject(subject);
    const body = encodeData(data);
    for (const listener of this.listeners) {
      if (!subjectMatches(listener.filter, subject)) continue;
      // Asynchronous like a network hop, so a notifier never runs listener code on its own stack.
      setImmediate(() => {
        try {
          listener.handler(decodeData(body));
        } catch (err) {
          this.logger.error({ err, subject }, 'notify listener threw');
        }
      });
    }
  }

  async onNotify(subject: string, handler: (data: unknown) => void): Promise<() => Promise<void>> {
    this.assertOpen();
    assertSubjectFilter(subject);
    const listener = { filter: subject, handler };
    this.listeners.add(listener);
    return async () => {
      this.listeners.delete(listener);
    };
  }

  async enqueue(queue: string, message: { id: string; data: unknown }): Promise<void> {
    this.assertOpen();
    assertQueueName(queue);
    const now = this.now();
    for (const [id, expiresAt] of this.seen) {
      // Map order is insertion order, so the first unexpired id ends the sweep.
      if (expiresAt > now) break;
      this.seen.delete(id);
    }
    if (this.seen.has(message.id)) return;
    this.seen.set(message.id, now + this.duplicateWindowMs);
    const entry: Entry = {
      seq: ++this.seq,
      id: message.id,
      queue,
      body: encodeData(message.data),
      deliveryCount: 0,
      availableAt: now,
      delivery: undefined,
      acked: false,
    };
    this.queue(queue).ready.push(entry);
    this.pump(queue);
  }

  async consume(
    queue: string,
    handler: (message: BusMessage) => Promise<void>,
    options?: ConsumeOptions,
  ): Promise<Consumer> {
    this.assertOpen();
    assertQueueName(queue);
    const consumer: LocalConsumer = {
      options: resolveConsumeOptions(options),
      handler,
      inFlight: new Set(),
      stopped: false,
    };
    const state = this.queue(queue);
    state.consumers.push(consumer);
    this.pump(queue);
    return {
      stop: async () => {
        consumer.stopped = true;
        state.consumers = state.consumers.filter((c) => c !== consumer);
        // Drain: in-flight handlers finish and ack, nothing new arrives.
        await Promise.allSettled([...consumer.inFlight]);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const inFlight: Promise<void>[] = [];
    for (const state of this.queues.values()) {
      if (state.wakeTimer) clearTimeout(state.wakeTimer);
      for (const consumer of state.consumers) {
        consumer.stopped = true;
        inFlight.push(...consumer.inFlight);
      }
      state.consumers = [];
    }
    this.listeners.clear();
    await Promise.allSettled(inFlight);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('Bus is closed');
  }

  private queue(name: string): QueueState {
    let state = this.queues.get(name);
    if (!state) {
      state = { ready: [], consumers: [], next: 0, wakeTimer: undefined };
      this.queues.set(name, state);
    }
    return state;
  }

  /** Hands available entries to consumers with free slots, round-robin; schedules itself for delayed ones. */
  private pump(queueName: string): void {
    const state = this.queues.get(queueName);
    if (!state || this.closed) return;
    const now = this.now();
    let progressed = true;
    while (progressed) {
      progressed = false;
      const count = state.consumers.length;
      for (let i = 0; i < count; i++) {
        const consumer = state.consumers[(state.next + i) % count];
        if (!consumer || consumer.stopped || consumer.inFlight.size >= consumer.options.concurrency) continue;
        const index = state.ready.findIndex((e) => e.availableAt <= now);
        if (index < 0) break;
        const [entry] = state.ready.splice(index, 1);
        if (!entry) break;
        state.next = (state.next + i + 1) % count;
        this.deliver(entry, consumer);
        progressed = true;
        break;
      }
    }
    const nextAt = state.ready.reduce((min, e) => Math.min(min, e.availableAt), Infinity);
    if (state.wakeTimer) clearTimeout(state.wakeTimer);
    state.wakeTimer =
      nextAt > now && nextAt !== Infinity && state.consumers.length > 0
        ? setTimeout(() => this.pump(queueName), nextAt - now)
        : undefined;
  }

  private deliver(entry: Entry, consumer: LocalConsumer): void {
    const token = {};
    entry.delivery = token;
    entry.deliveryCount += 1;
    const { ackWaitMs, maxDeliver } = consumer.options;
    const ackTimer = setTimeout(() => {
      this.timers.delete(ackTimer);
      if (entry.delivery !== token || entry.acked) return;
      // Like JetStream: an unacknowledged delivery is redelivered right away once ackWait has passed.
      this.retryOrDrop(entry, maxDeliver, 0, 'ack wait expired');
    }, ackWaitMs);
    this.timers.add(ackTimer);
    const message: BusMessage = {
      id: entry.id,
      queue: entry.queue,
      data: decodeData(entry.body),
      deliveryCount: entry.deliveryCount,
    };
    const run = (async () => {
      try {
        await consumer.handler(message);
        clearTimeout(ackTimer);
        this.timers.delete(ackTimer);
        // A late ack still acks, as on JetStream (acks name the stream sequence, not the delivery).
        this.ack(entry);
      } catch (err) {
        clearTimeout(ackTimer);
        this.timers.delete(ackTimer);
        if (entry.delivery !== token || entry.acked) return;
        this.logger.warn(
          { err, queue: entry.queue, id: entry.id, deliveryCount: entry.deliveryCount },
          'bus handler failed',
        );
        this.retryOrDrop(entry, maxDeliver, this.redeliveryDelay(entry.deliveryCount), 'handler failed');
      }
    })();
    consumer.inFlight.add(run);
    void run.finally(() => {
      consumer.inFlight.delete(run);
      this.pump(entry.queue);
    });
  }

  private ack(entry: Entry): void {
    if (entry.acked) return;
    entry.acked = true;
    entry.delivery = undefined;
    const state = this.queues.get(entry.queue);
    if (!state) return;
    const index = state.ready.indexOf(entry);
    if (index >= 0) state.ready.splice(index, 1);
  }

  private retryOrDrop(entry: Entry, maxDeliver: number, delayMs: number, reason: string): void {
    entry.delivery = undefined;
    if (entry.deliveryCount >= maxDeliver) {
      entry.acked = true;
      this.logger.error(
        { queue: entry.queue, id: entry.id, deliveryCount: entry.deliveryCount, reason },
        'bus message dropped after maxDeliver',
      );
      return;
    }
    entry.availableAt = this.now() + delayMs;
    const state = this.queue(entry.queue);
    // Keep stream order among waiting entries, as JetStream redelivers by sequence.
    const at = state.ready.findIndex((e) => e.seq > entry.seq);
    state.ready.splice(at < 0 ? state.ready.length : at, 0, entry);
    this.pump(entry.queue);
  }
}
