// Crash safety of the publishing pipeline: worker processes SIGKILLed right before and right after the platform
// call, again and again, with lost answers mixed in; every post ends published exactly once, or failed saying why.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxPublicationsOf, sandboxStats } from '../../../infra/connectors/sandbox/index.js';
import { natsTestBus } from '../../support/nats.js';
import { waitUntil } from '../../support/wait.js';
import {
  natsWorkerEnv,
  postFromStream,
  seedDuePosts,
  seedTargets,
  spawnWorker,
  startCoordinator,
  statusCounts,
  stopWorker,
  workerEnv,
  type Coordinator,
  type WorkerProcess,
} from './fixtures/harness.js';

const POSTS = 40;
const WORKER_SLOTS = 2;
const nats = natsTestBus('crash');

// With NATS the jobs travel over JetStream between processes (a killed worker's unacknowledged jobs come back).
// Without it, each worker runs what its own sweep finds, and the sweep lease moves on to a restarted worker.
const bus = nats.natsUrl ? ('nats' as const) : ('in-process' as const);
if (!nats.natsUrl) console.warn('crash.test: NATS_URL unset or unreachable; workers use the in-process bus');

let coordinator: Coordinator;
let dataDir: string;
const live = new Set<WorkerProcess>();

beforeAll(async () => {
  coordinator = await startCoordinator();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-crash-'));
});

afterAll(async () => {
  await Promise.all([...live].map((w) => stopWorker(w, 5000)));
  await coordinator?.stop();
  if (nats.natsUrl) await nats.deleteStream();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

describe(`publishing workers killed over and over (${bus} bus)`, () => {
  test(
    `${POSTS} due posts: each published exactly once or failed with its reason, none lost, none twice`,
    { timeout: 240_000 },
    async () => {
      const { service } = coordinator;
      const db = service.runtime.readModels;
      const targets = await seedTargets(service, 'Crash', [
        ['x', 'bluesky'],
        ['linkedin', 'x'],
        ['bluesky', 'threads'],
      ]);
      const posts = await seedDuePosts(service, targets, POSTS, { label: 'Crash', dueInMs: 1000 });

      const env = (run: number) =>
        workerEnv(service.database.url, dataDir, {
          ...(bus === 'nats' ? natsWorkerEnv(nats) : { BUS: bus }),
          PUBLISH_CONCURRENCY: '4',
          PUBLISH_SWEEP_INTERVAL_MS: '100',
          PUBLISH_LEASE_TTL_MS: '600',
          // Longer than any call here takes, so a reconcile never races a live call (see docs/operations.md).
          PUBLISH_STALE_ATTEMPT_MS: '1500',
          PUBLISH_CALL_TIMEOUT_MS: '1000',
          PUBLISH_RETRY_BASE_MS: '100',
          PUBLISH_RETRY_MAX_MS: '400',
          PUBLISH_MAX_ATTEMPTS: '12',
          // Lost answers: the sandbox records the post or not (half each) and the call ends unknown.
          SANDBOX_FAULTS: 'timeout=0.15',
          CRASH_SEED: String(run + 1),
          CRASH_BEFORE: '0.08',
          CRASH_AFTER: '0.08',
          // The first two runs crash at their first call, so both crash points are always covered.
          CRASH_FIRST: run === 0 ? 'after' : run === 1 ? 'before' : '',
          LOG_LEVEL: 'info',
        });

      let settled = false;
      let runs = 0;
      const ended: Array<{
        name: string;
        signal: NodeJS.Signals | null;
        code: number | null;
        output: string;
        readyAfterMs: number | null;
        livedMs: number;
      }> = [];
      const startedAt = Date.now();
      const slot = async () => {
        while (!settled) {
          const run = runs++;
          const spawnedAt = Date.now();
          const worker = spawnWorker(
            `crash-${bus}-${run}`,
            'test/processes/publishing/fixtures/crash-worker.ts',
            env(run),
          );
          live.add(worker);
          const how = await worker.exited;
          live.delete(worker);
          ended.push({
            name: worker.name,
            ...how,
            output: worker.output(),
            readyAfterMs: worker.readyAfterMs(),
            livedMs: Date.now() - spawnedAt,
          });
          // Only our own SIGKILL may end a worker before the test stops it.
          if (!settled && how.signal !== 'SIGKILL')
            throw new Error(`${worker.name} exited on its own (${how.code}):\n${worker.output()}`);
        }
      };
      const slots = Array.from({ length: WORKER_SLOTS }, slot);
      const slotsFailed = Promise.all(slots).then(() => null);

      try {
        await Promise.race([
          waitUntil(
            async () => {
              const counts = await statusCounts(service, posts);
              return (counts.published ?? 0) + (counts.failed ?? 0) === POSTS;
            },
            { timeoutMs: 200_000, intervalMs: 250, what: 'every post published or failed' },
          ),
          slotsFailed,
        ]);
      } finally {
        settled = true;
        await Promise.all([...live].map((w) => stopWorker(w)));
      }
      await slotsFailed;

      const ready = ended.flatMap((e) => (e.readyAfterMs === null ? [] : [e.readyAfterMs]));
      console.info(
        `crash.test (${bus}): ${ended.length} worker runs in ${Math.round((Date.now() - startedAt) / 1000)} s, ` +
          `${ended.filter((e) => e.signal === 'SIGKILL').length} killed; start-up median ${median(ready)} ms, ` +
          `lifetime median ${median(ended.map((e) => e.livedMs))} ms`,
      );
      const crashes = ended.flatMap((e) =>
        [...e.output.matchAll(/^CRASH (before|after) (\S+)$/gm)].map((m) => ({
          where: m[1]!,
          postId: m[2]!,
        })),
      );
      const killed = ended.filter((e) => e.signal === 'SIGKILL');
      expect(killed.length).toBe(crashes.length);
      expect(crashes.filter((c) => c.where === 'before').length).toBeGreaterThanOrEqual(1);
      expect(crashes.filter((c) => c.where === 'after').length).toBeGreaterThanOrEqual(1);
      expect(killed.length).toBeGreaterThanOrEqual(4);

      const failures: string[] = [];
      let published = 0;
      let retried = 0;
      for (const post of posts) {
        const { state, events } = await postFromStream(service, post);
        const publications = await sandboxPublicationsOf(db, post.postId);
        const where = `${post.platform} post ${post.postId} (${state.status}, ${state.attemptCount} attempts)`;
        const started = events.filter((e) => e.type === 'PostPublishAttemptStarted').map((e) => e.attempt);
        if (started.length === 0 || started.join() !== started.map((_, i) => i + 1).join())
          failures.push(`${where}: attempts started ${started.join() || 'none'}`);
        if (state.attemptCount !== started.length)
          failures.push(`${where}: attemptCount differs from ${started.length} attempts in the stream`);
        if (publications.length > 1) failures.push(`${where}: published ${publications.length} times`);
        if (state.attemptCount > 1) retried += 1;
        if (state.status === 'published') {
          published += 1;
          const [publication] = publications;
          if (!publication) failures.push(`${where}: no publication on the platform`);
          else if (publication.external_id !== state.publishedExternalId)
            failures.push(
              `${where}: recorded ${state.publishedExternalId}, platform has ${publication.external_id}`,
            );
          if (events.filter((e) => e.type === 'PostPublished').length !== 1)
            failures.push(`${where}: PostPublished recorded more than once`);
        } else if (state.status === 'failed') {
          // Unconfirmed: the outcome could not be checked. Exhausted: every attempt ended before the platform.
          const reason = /unconfirmed|gave up after \d+ attempts/i.exec(state.lastError ?? '');
          if (!reason) failures.push(`${where}: failed with "${state.lastError}"`);
          if (publications.length > 0 && !/unconfirmed/i.test(state.lastError ?? ''))
            failures.push(`${where}: failed although the platform has the post`);
        } else {
          failures.push(`${where}: not settled`);
        }
      }
      expect(failures).toEqual([]);
      expect(published).toBeGreaterThan(POSTS / 2);
      // The post crashed before its first call was reconciled as never sent and tried again.
      expect(retried).toBeGreaterThanOrEqual(1);
      const duplicates = (await sandboxStats(db)).duplicates.filter((d) =>
        posts.some((p) => p.postId === d.postId),
      );
      expect(duplicates).toEqual([]);
      // The read model agrees with the streams.
      const streamCounts: Record<string, number> = { published, failed: POSTS - published };
      await waitUntil(async () => {
        const counts = await statusCounts(service, posts);
        return (
          (counts.published ?? 0) === streamCounts.published && (counts.failed ?? 0) === streamCounts.failed
        );
      });
    },
  );
});
