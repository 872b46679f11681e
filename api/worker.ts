// Worker entry point (`npm run worker`): the runtime's background work without HTTP — projections, process
// managers, the outbox, the publishing sweep and publishing jobs — so operators can scale publishing out.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../infra/config/env.js';
import { loadEnv, type Env } from './env.js';
import { createLogger, type Logger } from '../infra/logging/logger.js';
import type { JobResult } from '../processes/publishing/publisher.js';
import { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
import { exitOnConfigError, exitWithFailure, stopOnSignals } from './startup.js';

export type WorkerSeams = Omit<NonNullable<RuntimeOptions['publishing']>, 'onJobDone'>;

export interface Worker {
  runtime: Runtime;
  /** Publishing jobs this process has finished, by result. */
  jobCounts(): Partial<Record<JobResult, number>>;
  stop(): Promise<void>;
}

/** Builds the runtime in server mode and starts its background work; nothing listens on a port. */
export async function startWorker(options: {
  env: Env;
  logger: Logger;
  publishing?: WorkerSeams;
}): Promise<Worker> {
  const { env, logger } = options;
  if (!env.DATABASE_URL) {
    // The embedded PostgreSQL belongs to `npm start`; a second process adopting it would stop it on exit.
    throw new ConfigError(['DATABASE_URL: is required for a worker (the database the API processes use)']);
  }
  const counts: Partial<Record<JobResult, number>> = {};
  const runtime = await createRuntime({
    env,
    logger,
    mode: 'server',
    publishing: {
      ...options.publishing,
      onJobDone: (_job, result) => {
        counts[result] = (counts[result] ?? 0) + 1;
      },
    },
  });
  try {
    await runtime.startBackground();
  } catch (error) {
    await runtime.stop();
    throw error;
  }
  if (env.BUS !== 'nats')
    logger.warn(
      'BUS is in-process: this worker runs only the jobs it sweeps itself; set BUS=nats to share work',
    );
  logger.info(
    {
      bus: env.BUS,
      ...(env.BUS === 'nats' ? { stream: env.NATS_STREAM, subjectPrefix: env.NATS_SUBJECT_PREFIX } : {}),
      eventStore: env.EVENT_STORE,
      concurrency: env.PUBLISH_CONCURRENCY,
    },
    'worker running',
  );
  return {
    runtime,
    jobCounts: () => ({ ...counts }),
    stop: () => runtime.stop(),
  };
}

/** Runs a worker until SIGINT/SIGTERM, like api/main.ts without the HTTP server. */
export async function runWorker(publishing?: WorkerSeams): Promise<void> {
  const env = await exitOnConfigError(loadEnv);
  const logger = createLogger({ level: env.LOG_LEVEL });
  const worker = await exitOnConfigError(() =>
    startWorker({ env, logger, ...(publishing ? { publishing } : {}) }),
  );
  stopOnSignals(logger, 'shutting down: finishing jobs in flight', async () => {
    await worker.stop();
    // The job counts let an operator (and the distributed test) see how work spread over the workers.
    logger.info({ jobs: worker.jobCounts() }, 'stopped');
  });
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) runWorker().catch(exitWithFailure('Worker failed to start: '));
