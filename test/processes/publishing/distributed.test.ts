// Two worker processes (api/worker.ts, BUS=nats) over the real NATS server share 1,000 due posts on one
// database: every post is published exactly once with a single attempt, and both workers do part of the work.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sandboxStats } from '../../../infra/connectors/sandbox/index.js';
import { natsTestBus } from '../../support/nats.js';
import { waitUntil } from '../../support/wait.js';
import {
  logLines,
  natsWorkerEnv,
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

const POSTS = 1000;
const nats = natsTestBus('distributed');
if (!nats.natsUrl)
  console.warn('distributed.test skipped: NATS_URL is unset or unreachable (it needs a real nats-server)');

let coordinator: Coordinator | undefined;
let dataDir = '';
const workers: WorkerProcess[] = [];

describe.skipIf(!nats.natsUrl)('two publishing workers over NATS (needs NATS_URL)', () => {
  beforeAll(async () => {
    coordinator = await startCoordinator();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-distributed-'));
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => stopWorker(w, 5000)));
    await coordinator?.stop();
    await nats.deleteStream();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test(
    `${POSTS} due posts, each published exactly once, shared by both workers`,
    { timeout: 180_000 },
    async () => {
      const { service } = coordinator!;
      const db = service.runtime.readModels;
      const env = workerEnv(service.database.url, dataDir, {
        ...natsWorkerEnv(nats),
        PUBLISH_SWEEP_INTERVAL_MS: '100',
        SANDBOX_FAULTS: 'none',
        LOG_LEVEL: 'info',
      });

      const targets = await seedTargets(service, 'Distributed', [
        ['x', 'bluesky'],
        ['linkedin', 'threads'],
      ]);
      const seedingAt = Date.now();
      const posts = await seedDuePosts(service, targets, POSTS, { label: 'Distributed', dueInMs: 1000 });
      const seededAt = Date.now();
      expect(new Set(posts.map((p) => p.postId)).size).toBe(POSTS);
      await waitUntil(async () => (await statusCounts(service, posts)).scheduled === POSTS, {
        what: 'every post scheduled in the read model',
      });

      // One burst: every post is due when the workers come up, so both pull from a full queue at once.
      workers.push(
        spawnWorker('worker-a', 'api/worker.ts', env),
        spawnWorker('worker-b', 'api/worker.ts', env),
      );
      await waitUntil(
        async () => {
          for (const w of workers)
            if (w.child.exitCode !== null) throw new Error(`${w.name} exited:\n${w.output()}`);
          return ((await statusCounts(service, posts)).published ?? 0) === POSTS;
        },
        { timeoutMs: 150_000, intervalMs: 250, what: `${POSTS} posts published` },
      );

      const publishedAt = Date.now();
      // A clean stop reports each worker's jobs by result.
      const stops = await Promise.all(workers.map((w) => stopWorker(w)));
      expect(stops).toEqual([
        { code: 0, signal: null },
        { code: 0, signal: null },
      ]);
      const jobs = workers.map((w) => {
        const stopped = logLines(w.output()).find((line) => line.msg === 'stopped');
        expect(stopped, w.output()).toBeDefined();
        return stopped!.jobs as Record<string, number>;
      });
      const published = jobs.map((j) => j.published ?? 0);
      console.info(
        `distributed.test: seeded ${POSTS} posts in ${seededAt - seedingAt} ms; workers started, all published ` +
          `${publishedAt - seededAt} ms later (start-ups ${workers.map((w) => w.readyAfterMs()).join(' / ')} ms); ` +
          `jobs per worker ${jobs.map((j) => JSON.stringify(j)).join(' / ')}`,
      );
      expect(published[0]! + published[1]!).toBe(POSTS);
      expect(published[0]).toBeGreaterThan(0);
      expect(published[1]).toBeGreaterThan(0);

      const stats = await sandboxStats(db);
      expect(stats.duplicates).toEqual([]);
      expect(stats.platforms.reduce((sum, p) => sum + p.total, 0)).toBe(POSTS);
      expect(stats.platforms.reduce((sum, p) => sum + p.published, 0)).toBe(POSTS);
      const perPost = await sql<{ post_id: string; n: string }>`
        select post_id, count(*) as n from sandbox_publications group by post_id`.execute(db);
      expect(new Set(perPost.rows.map((r) => r.post_id))).toEqual(new Set(posts.map((p) => p.postId)));

      const rows = await db
        .selectFrom('posts')
        .select(['id', 'status', 'body'])
        .where(
          'id',
          'in',
          posts.map((p) => p.postId),
        )
        .execute();
      const wrong = rows
        .filter(
          (r) =>
            r.status !== 'published' ||
            r.body.attemptCount !== 1 ||
            r.body.idempotencyKey !== `publish:${r.id}:1` ||
            !r.body.publishedExternalId,
        )
        .map((r) => `${r.id}: ${r.status}, ${r.body.attemptCount} attempts`);
      expect(rows).toHaveLength(POSTS);
      expect(wrong).toEqual([]);
    },
  );
});
