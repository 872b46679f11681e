// Service entry point (`npm start`): validate configuration, build the runtime, serve HTTP, run the
// projections and processes, and on SIGINT/SIGTERM drain requests and stop everything cleanly.
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { loadEnv } from './env.js';
import { createLogger } from '../infra/logging/logger.js';
import { createRuntime, publicBaseUrl } from './runtime.js';
import { exitOnConfigError, exitWithFailure, stopOnSignals } from './startup.js';

/** How long in-flight requests may run on after a stop signal. */
const drainGraceMs = 5_000;

async function main(): Promise<void> {
  const env = await exitOnConfigError(loadEnv);
  const logger = createLogger({ level: env.LOG_LEVEL });
  // A bad billing configuration file (config/billing.json) is a configuration error too.
  const runtime = await exitOnConfigError(() => createRuntime({ env, logger, mode: 'server' }));
  await runtime.startBackground();

  const server = serve({ fetch: runtime.app.fetch, port: env.PORT, hostname: env.HOST }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : env.PORT;
  logger.info({ port, url: publicBaseUrl(env), eventStore: env.EVENT_STORE, bus: env.BUS }, 'listening');

  stopOnSignals(logger, 'shutting down: draining requests', async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Requests still running after the grace period are cut so the database can stop cleanly, the whole stop
    // staying within stopOnSignals' deadline (9 s).
    const grace = setTimeout(() => server.closeAllConnections(), drainGraceMs);
    await closed;
    clearTimeout(grace);
    await runtime.stop();
    logger.info('stopped');
  });
}

main().catch(exitWithFailure('Failed to start: '));
