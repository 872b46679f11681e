// A background job that runs a round, waits, and runs again until stopped: the token refresher's and the metrics
// fetcher's loop. A failed round is logged and the next one comes at the usual time; stop() ends the wait at once
// and returns after the round in progress.
import { sleep } from './sleep.js';

export class Rounds {
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** True once stop() was called: a long round can end early. */
  get stopping(): boolean {
    return this.abort?.signal.aborted ?? false;
  }

  start(): void {
    if (this.loop) return;
    const abort = new AbortController();
    this.abort = abort;
    this.loop = (async () => {
      while (!abort.signal.aborted) {
        try {
          await this.round();
        } catch (error) {
          this.onError(error);
        }
        await sleep(this.intervalMs, abort.signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
    this.loop = undefined;
    this.abort = undefined;
  }
}
