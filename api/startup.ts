// What the entry points (api/main.ts, api/worker.ts, api/cli.ts) share around their own work: configuration
// errors reported without a stack, a start-up failure reported once, and the stop on SIGINT/SIGTERM.
import { ConfigError } from '../infra/config/env.js';
import type { Logger } from '../infra/logging/logger.js';

/**
 * Runs a start-up step; a ConfigError it throws goes to stderr and exits 1. Its message names the variables
 * to fix, so a stack would only hide it.
 */
export async function exitOnConfigError<T>(step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** The last resort of an entry point: what made it fail, on stderr, and exit 1. */
export function exitWithFailure(prefix: string): (error: unknown) => never {
  return (error) => {
    process.stderr.write(
      `${prefix}${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  };
}

/** How long a stop may take from the first signal before the process exits anyway (code 1). */
export const stopDeadlineMs = 9_000;

/**
 * On the first SIGINT or SIGTERM, logs `stopping` and runs `stop` (which drains and logs its own end), then
 * exits 0. Further signals do not cut the drain short: signalled as a process group (systemd's default, a
 * supervisor, Ctrl-C in a terminal) the service gets the signal once from the kernel and again from each
 * launcher that relays it (npm, tsx), so a second signal is no operator's impatience. The stop is bounded
 * instead: after `deadlineMs` the process exits 1 (the embedded PostgreSQL is still told to stop: see
 * infra/db/embedded-postgres.ts's exit hook).
 */
export function stopOnSignals(
  logger: Logger,
  stopping: string,
  stop: () => Promise<void>,
  deadlineMs = stopDeadlineMs,
): void {
  let stopped = false;
  const shutdown = async (signal: string) => {
    if (stopped) {
      logger.warn({ signal }, `already shutting down: the drain goes on (at most ${deadlineMs / 1000} s)`);
      return;
    }
    stopped = true;
    logger.info({ signal }, stopping);
    setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown took too long: exiting now');
      process.exit(1);
    }, deadlineMs);
    try {
      await stop();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
