// The notification benchmark's event source, run in a process of its own (forked by notification-fanout.ts) so that
// appending never takes CPU from the service's event loop: it appends "approval requested" events
// (PostGroupSubmittedForApproval) to the event store at a steady rate for a fixed time, ten per append to a fresh
// group stream, and reports how many it appended and how long its appends took.
import { randomUUID } from 'node:crypto';
import { createDatabase } from '../../infra/db/database.js';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.js';
import type { NewEvent } from '../../infra/event-store/port.js';

export interface EventSourceSpec {
  url: string;
  orgId: string;
  /** The member who asks for approval (an editor: every approver is notified). */
  by: string;
  /** Events per second. */
  rate: number;
  seconds: number;
}

export interface EventSourceResult {
  appended: number;
  seconds: number;
  /** Append latency, ms. */
  p50: number;
  p99: number;
  /** Appends still waiting when the run ended (a source that could not keep the rate). */
  behind: number;
}

const perAppend = 10;
const maxInFlight = 8;

async function run(spec: EventSourceSpec): Promise<EventSourceResult> {
  const database = createDatabase<unknown>(spec.url, { max: maxInFlight + 1 });
  const store = new PostgresEventStore({ db: database.db, url: spec.url });
  const latencies: number[] = [];
  let appended = 0;
  let scheduled = 0;
  let inFlight = 0;
  const started = performance.now();
  const deadline = started + spec.seconds * 1000;
  const metadata = () => ({
    orgId: spec.orgId,
    actor: spec.by,
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  });
  const append = async (count: number) => {
    inFlight++;
    const groupId = randomUUID();
    const at = new Date().toISOString();
    const events: NewEvent[] = Array.from({ length: count }, () => ({
      type: 'PostGroupSubmittedForApproval',
      data: {
        orgId: spec.orgId,
        groupId,
        by: spec.by,
        at,
        approvalId: randomUUID(),
        level: 'group',
        cause: 'submitted',
        posts: [],
        groupStatus: 'pending_approval',
      },
      metadata: metadata(),
    }));
    const t = performance.now();
    await store.appendToStream(`postGroup-${groupId}`, events, { expectedRevision: 'any' });
    latencies.push(performance.now() - t);
    appended += count;
    inFlight--;
  };
  const pending: Promise<void>[] = [];
  while (performance.now() < deadline) {
    const due = Math.floor(((performance.now() - started) / 1000) * spec.rate);
    while (scheduled < due && inFlight < maxInFlight) {
      const count = Math.min(perAppend, due - scheduled);
      scheduled += count;
      pending.push(append(count));
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const behind = Math.floor(spec.seconds * spec.rate) - scheduled;
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  await database.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { appended, seconds, p50: at(0.5), p99: at(0.99), behind };
}

if (process.env.BENCH_EVENT_SOURCE === '1' && process.send) {
  process.once('message', (spec: EventSourceSpec) => {
    run(spec).then(
      (result) => process.send!({ ok: true, result }, () => process.exit(0)),
      (error: unknown) =>
        process.send!({ ok: false, error: error instanceof Error ? error.stack : String(error) }, () =>
          process.exit(1),
        ),
    );
  });
}
