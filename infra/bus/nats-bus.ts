// The distributed bus on NATS: core subjects for wake-ups, one JetStream work-queue stream for durable work
// (a durable pull consumer per queue, explicit ack, Nats-Msg-Id de-duplication, nak with delay on failure).
//
// Durability needs the server to run JetStream with `sync_interval: always` (set in the server config, see
// docker-compose): with the default periodic fsync an acknowledged publish can be lost on power failure.
import { createHash } from 'node:crypto';
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  DiscardPolicy,
  Events,
  nanos,
  NatsError,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerMessages,
  type ConnectionOptions,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type Consumer as JsConsumer,
  type StreamConfig,
  type Subscription,
} from 'nats';
import {
  defaultRedeliveryDelay,
  resolveConsumeOptions,
  type RedeliveryDelay,
  type ResolvedConsumeOptions,
} from './consume-options.js';
import { decodeData, encodeData } from './envelope.js';
import type { BusLogger } from './in-process-bus.js';
import type { Bus, BusMessage, Consumer, ConsumeOptions } from './port.js';
import { assertQueueName, assertSubject, assertSubjectFilter } from './subjects.js';
import { sleep } from '../async/sleep.js';

export interface NatsBusOptions {
  url: string;
  /** JetStream stream holding all work queues; per-run names keep parallel test runs apart. */
  streamName?: string;
  /** Queue `q` is stored on subject `<subjectPrefix>.q`; the stream listens on `<subjectPrefix>.>`. */
  subjectPrefix?: string;
  /** JetStream de-duplication window for `Nats-Msg-Id`. */
  duplicateWindowMs?: number;
  /** Messages nobody acknowledged (e.g. past maxDeliver) are discarded after this age. */
  maxAgeMs?: number;
  replicas?: number;
  redeliveryDelay?: RedeliveryDelay;
  /** How long one pull request waits on the server for messages before the next one (min 1000). */
  pullExpiresMs?: number;
  connectionName?: string;
  /** Extra client options (credentials, TLS); servers and reconnect settings are set here. */
  connection?: Omit<ConnectionOptions, 'servers'>;
  logger?: BusLogger;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const noopLogger: BusLogger = { warn: () => undefined, error: () => undefined };

// JetStream API error codes (nats-server errors.json).
const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;
const CONSUMER_NOT_FOUND = 10014;
const CONSUMER_NAME_EXISTS = 10013;
const CONSUMER_ALREADY_EXISTS = 10148;

function apiErrorCode(err: unknown): number | undefined {
  return err instanceof NatsError ? err.api_error?.err_code : undefined;
}

export class NatsBus implements Bus {
  readonly name = 'nats' as const;
  private readonly consumers = new Set<Consumer>();
  private readonly listeners = new Set<Subscription>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly streamName: string,
    private readonly subjectPrefix: string,
    private readonly redeliveryDelay: RedeliveryDelay,
    private readonly pullExpiresMs: number,
    private readonly logger: BusLogger,
  ) {}

  /** Connects (reconnecting forever afterwards) and creates or updates the work stream. */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const streamName = options.streamName ?? 'WORK';
    const subjectPrefix = options.subjectPrefix ?? 'work';
    assertQueueName(subjectPrefix);
    const logger = options.logger ?? noopLogger;
    const nc = await connect({
      ...options.connection,
      servers: options.url,
      name: options.connectionName ?? 'social-publishing',
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
    });
    try {
      const jsm = await nc.jetstreamManager();
      await ensureStream(jsm, {
        name: streamName,
        subjects: [`${subjectPrefix}.>`],
        // Work-queue retention removes a message once acked, so the stream only holds outstanding work.
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        duplicate_window: nanos(options.duplicateWindowMs ?? 120_000),
        max_age: nanos(options.maxAgeMs ?? 7 * 24 * 3600 * 1000),
        num_replicas: options.replicas ?? 1,
      });
      const bus = new NatsBus(
        nc,
        nc.jetstream(),
        jsm,
        streamName,
        subjectPrefix,
        options.redeliveryDelay ?? defaultRedeliveryDelay,
        Math.max(1000, options.pullExpiresMs ?? 5000),
        logger,
      );
      bus.watchStatus();
      return bus;
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async notify(subject: string, data?: unknown): Promise<void> {
    assertSubject(subject);
    this.nc.publish(subject, encoder.encode(encodeData(data)));
    // Resolved means at the server: the listeners subscribed by then get it, later ones do not (a publish left in
    // this client's buffer could otherwise reach a listener that subscribed after notify resolved).
    await this.nc.flush();
  }

  async onNotify(subject: string, handler: (data: unknown) => void): Promise<() => Promise<void>> {
    assertSubjectFilter(subject);
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return this.logger.error({ err, subject }, 'notify subscription failed');
        try {
          handler(decodeData(decoder.decode(msg.data)));
        } catch (error) {
          this.logger.error({ err: error, subject }, 'notify listener threw');
        }
      },
    });
    this.listeners.add(sub);
    // The subscription is live on the server once flushed, so a notify sent after this resolves arrives.
    await this.nc.flush();
    return async () => {
      if (!this.listeners.delete(sub)) return;
      sub.unsubscribe();
      if (!this.nc.isClosed()) await this.nc.flush();
    };
  }

  async enqueue(queue: string, message: { id: string; data: unknown }): Promise<void> {
    assertQueueName(queue);
    // Resolves on the stream's ack; with sync_interval: always the message is on disk by then.
    await this.js.publish(this.subjectFor(queue), encoder.encode(encodeData(message.data)), {
      msgID: message.id,
      expect: { streamName: this.streamName },
    });
  }

  async consume(
    queue: string,
    handler: (message: BusMessage) => Promise<void>,
    options?: ConsumeOptions,
  ): Promise<Consumer> {
    assertQueueName(queue);
    const resolved = resolveConsumeOptions(options);
    const durable = durableNameFor(queue);
    await this.ensureConsumer(queue, durable, resolved);

    const abort = new AbortController();
    const inFlight = new Set<Promise<void>>();
    let batch: ConsumerMessages | undefined;

    const loop = (async () => {
      let failures = 0;
      let needsEnsure = false;
      let consumer: JsConsumer | undefined;
      while (!abort.signal.aborted) {
        if (inFlight.size >= resolved.concurrency) {
          await Promise.race(inFlight);
          continue;
        }
        try {
          if (needsEnsure) await this.ensureConsumer(queue, durable, resolved);
          needsEnsure = false;
          consumer ??= await this.js.consumers.get(this.streamName, durable);
          // Pull only as many as there are free slots, so no message waits out its ackWait in a buffer.
          batch = await consumer.fetch({
            max_messages: resolved.concurrency - inFlight.size,
            expires: this.pullExpiresMs,
          });
          if (abort.signal.aborted) batch.stop();
          for await (const msg of batch) {
            const run = this.handle(queue, msg, handler, resolved);
            inFlight.add(run);
            void run.finally(() => inFlight.delete(run));
          }
          failures = 0;
        } catch (err) {
          if (abort.signal.aborted) break;
          failures += 1;
          consumer = undefined;
          const code = apiErrorCode(err);
          needsEnsure = code === CONSUMER_NOT_FOUND || code === STREAM_NOT_FOUND || failures > 1;
          this.logger.warn({ err, queue, failures }, 'bus pull failed; retrying');
          await sleep(Math.min(30_000, 250 * 2 ** Math.min(failures, 7)), abort.signal);
        } finally {
          batch = undefined;
        }
      }
    })();

    let stopping: Promise<void> | undefined;
    const handle: Consumer = {
      stop: () => {
        stopping ??= (async () => {
          abort.abort();
          // Unsubscribing the pull inbox makes the server skip this request; flushing orders it before
          // anything another connection enqueues after stop() resolves.
          batch?.stop();
          await loop;
          await Promise.allSettled([...inFlight]);
          if (!this.nc.isClosed()) await this.nc.flush().catch(() => undefined);
          this.consumers.delete(handle);
        })();
        return stopping;
      },
    };
    this.consumers.add(handle);
    return handle;
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.consumers].map((c) => c.stop()));
      for (const sub of this.listeners) sub.unsubscribe();
      this.listeners.clear();
      if (!this.nc.isClosed()) await this.nc.drain();
    })();
    return this.closing;
  }

  private subjectFor(queue: string): string {
    return `${this.subjectPrefix}.${queue}`;
  }

  private async handle(
    queue: string,
    msg: JsMsg,
    handler: (message: BusMessage) => Promise<void>,
    options: ResolvedConsumeOptions,
  ): Promise<void> {
    const deliveryCount = msg.info.deliveryCount;
    const id = msg.headers?.get('Nats-Msg-Id') || `${this.streamName}:${msg.seq}`;
    let data: unknown;
    try {
      data = decodeData(decoder.decode(msg.data));
    } catch (err) {
      this.logger.error({ err, queue, id }, 'undecodable bus message terminated');
      msg.term('undecodable');
      return;
    }
    try {
      await handler({ id, queue, data, deliveryCount });
    } catch (err) {
      if (deliveryCount >= options.maxDeliver) {
        this.logger.error({ err, queue, id, deliveryCount }, 'bus message dropped after maxDeliver');
        msg.term('max deliveries reached');
      } else {
        this.logger.warn({ err, queue, id, deliveryCount }, 'bus handler failed');
        msg.nak(this.redeliveryDelay(deliveryCount));
      }
      return;
    }
    try {
      // Wait for the server to confirm, so "handler resolved" means "will not be redelivered".
      await msg.ackAck();
    } catch (err) {
      // Lost ack: the message comes back after ackWait; handlers are idempotent by message id.
      this.logger.warn({ err, queue, id }, 'bus ack not confirmed');
    }
  }

  private async ensureConsumer(queue: string, durable: string, options: ResolvedConsumeOptions) {
    const wanted = {
      ack_wait: nanos(options.ackWaitMs),
      max_deliver: options.maxDeliver,
    };
    const config: Partial<ConsumerConfig> = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.subjectFor(queue),
      ...wanted,
    };
    let info;
    try {
      info = await this.jsm.consumers.info(this.streamName, durable);
    } catch (err) {
      if (apiErrorCode(err) !== CONSUMER_NOT_FOUND) throw err;
    }
    if (!info) {
      try {
        await this.jsm.consumers.add(this.streamName, config);
        return;
      } catch (err) {
        const code = apiErrorCode(err);
        // Another process created it first; fall through to reconcile its settings.
        if (code !== CONSUMER_NAME_EXISTS && code !== CONSUMER_ALREADY_EXISTS) throw err;
        info = await this.jsm.consumers.info(this.streamName, durable);
      }
    }
    // One durable consumer per queue, so the last consume() call's ackWait/maxDeliver apply to all its consumers
    // (the in-process bus applies each consumer's own); pass the same options from every process.
    if (info.config.ack_wait !== wanted.ack_wait || info.config.max_deliver !== wanted.max_deliver) {
      await this.jsm.consumers.update(this.streamName, durable, wanted);
    }
  }

  private watchStatus(): void {
    void (async () => {
      for await (const status of this.nc.status()) {
        if (
          status.type === Events.Disconnect ||
          status.type === Events.Reconnect ||
          status.type === Events.Error
        )
          this.logger.warn({ status: status.type, data: status.data }, 'nats connection status');
      }
    })().catch(() => undefined);
  }
}

/** Consumer names cannot hold dots; a hash suffix keeps `a.b` and `a_b` apart. */
export function durableNameFor(queue: string): string {
  const hash = createHash('sha256').update(queue).digest('hex').slice(0, 8);
  return `${queue.replace(/[^A-Za-z0-9_-]/g, '_')}-${hash}`;
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) {
  let exists = true;
  try {
    const info = await jsm.streams.info(config.name);
    const c = info.config;
    const same =
      c.duplicate_window === config.duplicate_window &&
      c.max_age === config.max_age &&
      c.num_replicas === config.num_replicas &&
      JSON.stringify(c.subjects) === JSON.stringify(config.subjects);
    if (same) return;
  } catch (err) {
    if (apiErrorCode(err) !== STREAM_NOT_FOUND) throw err;
    exists = false;
  }
  if (!exists) {
    try {
      await jsm.streams.add(config);
      return;
    } catch (err) {
      // Several processes start together; whoever lost the race reconciles below.
      if (apiErrorCode(err) !== STREAM_NAME_IN_USE) throw err;
    }
  }
  // Retention and storage cannot change in place; the server refuses and the start fails with its reason.
  await jsm.streams.update(config.name, config);
}
