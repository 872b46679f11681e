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

/**
 * On the first SIGINT or SIGTERM, logs `stopping` and runs `stop` (which drains and logs its own end), then
 * exits 0; a second signal exits 1 at once, for an operator who will not wait for the drain.
 */
export function stopOnSignals(logger: Logger, stopping: string, stop: () => Promise<void>): void {
  let stopped = false;
  const shutdown = async (signal: string) => {
    if (stopped) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopped = true;
    logger.info({ signal }, stopping);
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
