// A background job that runs a round, waits, and runs again until stopped: the token refresher's, the metrics
// fetcher's and the notification mailer's loop. A failed round is logged and the next one comes at the usual time;
// stop() ends the wait at once and returns after the round in progress.
import { sleep } from './sleep.js';

/**
 * What ends a wait between rounds before the interval: called before each round (so what happens during the
 * round counts), it resolves when there is news, after `timeoutMs`, or when the signal aborts.
 */
export interface RoundWakeUp {
  wait(timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** The shortest time between the starts of two rounds, however much news comes. */
  minGapMs: number;
}

export class Rounds {
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly round: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly wakeUp?: RoundWakeUp,
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
        const startedAt = Date.now();
        const news = this.wakeUp?.wait(this.intervalMs, abort.signal);
        try {
          await this.round();
        } catch (error) {
          this.onError(error);
        }
        if (!news) {
          await sleep(this.intervalMs, abort.signal);
          continue;
        }
        await news;
        const gap = startedAt + this.wakeUp!.minGapMs - Date.now();
        if (gap > 0) await sleep(gap, abort.signal);
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
