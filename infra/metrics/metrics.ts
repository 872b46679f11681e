// Prometheus metrics (prom-client). One registry per runtime (tests and benchmarks build several runtimes in
// one process). Counters and histograms are updated where the work happens; gauges that describe shared state
// (projection lag, outbox depth) are read from the database when scraped, so every instance reports the same
// truth rather than what it alone has seen.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The event-loop delay histogram's timer (`nodejs_eventloop_lag_*`). prom-client's default, 10 ms, wakes an idle
 * process 100 times a second: about 0.35% of a core on its own, most of an idle instance's CPU (issue 26). At
 * 100 ms a stall longer than that is still always recorded; a shorter one is recorded when it covers a tick, and
 * shortened by the phase (docs/decisions.md).
 */
export const EVENT_LOOP_MONITORING_PRECISION_MS = 100;

/** What the write path reports about each command it handles. */
export type CommandOutcomeLabel =
  /** Events appended. */
  | 'appended'
  /** Decided to change nothing (a repeated request). */
  | 'unchanged'
  /** Refused by the domain (a rule, a missing resource, …). */
  | 'refused'
  /** Still conflicting after the retries (answered 409). */
  | 'conflict'
  /** Anything else (the store failed, read-your-writes timed out, …). */
  | 'failed';

export interface CommandMetrics {
  /** One command handled, by its type. `retries`: how many times it was decided again after a conflict. */
  commandHandled(command: string, outcome: CommandOutcomeLabel, retries: number): void;
}

export interface PublishMetrics {
  /** One publishing job finished, with what became of the post. */
  publishOutcome(platform: string, outcome: string): void;
  /** A post published: seconds from the time it was scheduled for to the platform's acceptance. */
  publishDelay(platform: string, seconds: number): void;
  /** One call to a platform (`operation`: publish, …), how long it took and whether it answered. */
  platformCall(platform: string, operation: string, outcome: 'ok' | 'error', seconds: number): void;
}

export interface SlotFinderMetrics {
  /**
   * One slot finder's ranking, by where its busy times came from: this instance's snapshot (the workspace's
   * versions had not moved), or the database.
   */
  slotFinderBusyTimes(source: 'snapshot' | 'database'): void;
}

/** How a tool call ended: `ok`, or the class of its error (`client_error` 4xx, `server_error` 5xx, …). */
export type ToolOutcomeLabel = 'ok' | 'invalid_input' | 'forbidden' | 'client_error' | 'server_error';

export interface ToolMetrics {
  /** One assistant tool call (MCP tools/call) finished, by tool name and outcome. */
  toolCall(tool: string, outcome: ToolOutcomeLabel): void;
}

export interface RenderMetrics {
  /** One branded visual render (`kind`: image, carousel, screenshot) and whether it answered. */
  render(kind: string, outcome: 'ok' | 'error', seconds: number): void;
}

export interface ScrapedGauges {
  /** Per projection: events not yet folded (counted up to a cap) and seconds since the oldest of them. */
  projectionLag(): Promise<Array<{ projection: string; events: number; seconds: number }>>;
  /** Outbox rows not yet dispatched, and the age of the oldest in seconds. */
  outbox(): Promise<{ depth: number; oldestSeconds: number }>;
}

export class Metrics
  implements CommandMetrics, PublishMetrics, SlotFinderMetrics, ToolMetrics, RenderMetrics
{
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly commands: Counter<'command' | 'outcome'>;
  private readonly commandRetries: Counter<'command'>;
  private readonly publishOutcomes: Counter<'platform' | 'outcome'>;
  private readonly slotFinderBusy: Counter<'source'>;
  private readonly toolCalls: Counter<'tool' | 'outcome'>;
  private readonly publishDelays: Histogram<'platform'>;
  private readonly renders: Histogram<'kind' | 'outcome'>;
  private readonly platformCalls: Histogram<'platform' | 'operation' | 'outcome'>;
  private gauges: ScrapedGauges | undefined;
  /** The readings of the scrape in progress: two gauges share each reading. */
  private readings:
    | { lag: ReturnType<ScrapedGauges['projectionLag']>; outbox: ReturnType<ScrapedGauges['outbox']> }
    | undefined;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({
        register: this.registry,
        eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS,
      });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern, method and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.commands = new Counter({
      name: 'commands_total',
      help: 'Commands handled by the write path, by command type and outcome',
      labelNames: ['command', 'outcome'],
      registers: [this.registry],
    });
    this.commandRetries = new Counter({
      name: 'command_conflict_retries_total',
      help: 'Commands decided again after another writer appended first',
      labelNames: ['command'],
      registers: [this.registry],
    });
    this.publishOutcomes = new Counter({
      name: 'publish_outcomes_total',
      help: 'Publishing jobs finished, by platform and outcome',
      labelNames: ['platform', 'outcome'],
      registers: [this.registry],
    });
    this.slotFinderBusy = new Counter({
      name: 'slot_finder_busy_times_total',
      help: "Slot finder rankings by where the busy times came from: this instance's snapshot or the database",
      labelNames: ['source'],
      registers: [this.registry],
    });
    this.toolCalls = new Counter({
      name: 'mcp_tool_calls_total',
      help: 'Assistant tool calls (MCP tools/call) by tool and outcome (ok, invalid_input, forbidden, client_error, server_error)',
      labelNames: ['tool', 'outcome'],
      registers: [this.registry],
    });
    this.publishDelays = new Histogram({
      name: 'publish_delay_seconds',
      help: 'Scheduled posts published: seconds from the time scheduled for to publication, by platform',
      labelNames: ['platform'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600],
      registers: [this.registry],
    });
    this.platformCalls = new Histogram({
      name: 'platform_call_duration_seconds',
      help: 'Calls to the social platforms (connectors), by platform, operation and outcome (ok, error)',
      labelNames: ['platform', 'operation', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [this.registry],
    });
    this.renders = new Histogram({
      name: 'visual_render_duration_seconds',
      help: 'Branded visual renders (image, carousel, screenshot) in the render pool, by kind and outcome',
      labelNames: ['kind', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
      registers: [this.registry],
    });
    // The gauges' collect() runs with `this` bound to the gauge; the reading comes from this instance.
    const read = () => this.reading();
    new Gauge({
      name: 'projection_lag_events',
      help: 'Events a projection has not folded yet (counted up to 1000)',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const lag of (await read()?.lag) ?? []) this.set({ projection: lag.projection }, lag.events);
      },
    });
    new Gauge({
      name: 'projection_lag_seconds',
      help: 'Age of the oldest event a projection has not folded yet (0 when caught up)',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        for (const lag of (await read()?.lag) ?? []) this.set({ projection: lag.projection }, lag.seconds);
      },
    });
    new Gauge({
      name: 'outbox_depth',
      help: 'Outbox messages not yet dispatched to the bus',
      registers: [this.registry],
      async collect() {
        const outbox = await read()?.outbox;
        if (outbox) this.set(outbox.depth);
      },
    });
    new Gauge({
      name: 'outbox_oldest_seconds',
      help: 'Age of the oldest outbox message not yet dispatched (0 when empty)',
      registers: [this.registry],
      async collect() {
        const outbox = await read()?.outbox;
        if (outbox) this.set(outbox.oldestSeconds);
      },
    });
  }

  /** Where the scraped gauges read from (set once the database is there). */
  readGaugesFrom(gauges: ScrapedGauges): void {
    this.gauges = gauges;
  }

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  commandHandled(command: string, outcome: CommandOutcomeLabel, retries: number): void {
    this.commands.inc({ command, outcome });
    if (retries > 0) this.commandRetries.inc({ command }, retries);
  }

  publishOutcome(platform: string, outcome: string): void {
    this.publishOutcomes.inc({ platform, outcome });
  }

  slotFinderBusyTimes(source: 'snapshot' | 'database'): void {
    this.slotFinderBusy.inc({ source });
  }

  publishDelay(platform: string, seconds: number): void {
    this.publishDelays.observe({ platform }, Math.max(0, seconds));
  }

  platformCall(platform: string, operation: string, outcome: 'ok' | 'error', seconds: number): void {
    this.platformCalls.observe({ platform, operation, outcome }, seconds);
  }

  render(kind: string, outcome: 'ok' | 'error', seconds: number): void {
    this.renders.observe({ kind, outcome }, seconds);
  }

  toolCall(tool: string, outcome: ToolOutcomeLabel): void {
    this.toolCalls.inc({ tool, outcome });
  }

  /** The exposition text, and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    try {
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    } finally {
      this.readings = undefined;
    }
  }

  private reading(): NonNullable<typeof this.readings> | undefined {
    if (!this.gauges) return undefined;
    // Unhandled rejections are avoided: each reading is awaited by its gauges' collect.
    this.readings ??= { lag: this.gauges.projectionLag(), outbox: this.gauges.outbox() };
    return this.readings;
  }
}
