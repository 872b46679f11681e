// The X automation's nightly sweep: every instance looks, each round, for workspaces with an enabled rule whose
// night has come in their effective time zone (01:00 to 05:00 local) and that have not been swept that night,
// and runs their rules. Once per night and one instance at a time: the run claims the night on the workspace's
// automation stream (RunStarted with the night's date and a lease, appended with the expected revision); another
// instance finds it taken (or done) and moves on, and takes it over only if the holder stopped renewing it.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { Conflict } from '../../domain/shared/errors.js';
import { Rounds } from '../../infra/async/rounds.js';
import type { Logger } from '../../infra/logging/logger.js';
import { workspacesToSweep } from '../../projections/automation/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import { runXAutomation, type AutomationRunDeps } from '../../commands/automation/run-x-automation.js';

/** The night, in the workspace's local time: from 01:00 until 05:00. */
export const nightStartHour = 1;
export const nightEndHour = 5;

/** The workspace's local date and hour at `now` in `timezone` (IANA), by the runtime's time-zone database. */
export function localClock(now: Date, timezone: string): { localDate: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { localDate: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) };
}

/** The night (its local date) `now` falls in for a workspace in `timezone`, or null outside the night hours. */
export function nightOf(now: Date, timezone: string): string | null {
  const { localDate, hour } = localClock(now, timezone);
  return hour >= nightStartHour && hour < nightEndHour ? localDate : null;
}

export interface NightlySweepOptions {
  readModels: Kysely<ReadModels>;
  run: AutomationRunDeps;
  /** The workspace's effective time zone (its audience's, else its own, else UTC). */
  timezoneOf: (orgId: string) => Promise<string>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  intervalMs: number;
  now?: () => Date;
}

export interface SweepRound {
  /** Workspaces whose night this round ran. */
  swept: string[];
  /** Workspaces whose night another instance holds or finished. */
  taken: string[];
  failed: string[];
}

export class NightlySweep {
  private rounds: Rounds | undefined;
  private readonly now: () => Date;

  constructor(private readonly options: NightlySweepOptions) {
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    this.rounds ??= new Rounds(
      () => this.runOnce(),
      this.options.intervalMs,
      (error) => this.options.logger.error({ err: error }, 'X automation sweep round failed'),
    );
    this.rounds.start();
  }

  async stop(): Promise<void> {
    await this.rounds?.stop();
  }

  /** One round at `now`: every workspace in its night and not swept yet that night is run. */
  async runOnce(now: Date = this.now()): Promise<SweepRound> {
    const round: SweepRound = { swept: [], taken: [], failed: [] };
    for (const { orgId, lastNight } of await workspacesToSweep(this.options.readModels, now)) {
      if (this.rounds?.stopping) break;
      const night = nightOf(now, await this.options.timezoneOf(orgId));
      if (night === null || (lastNight !== null && lastNight >= night)) continue;
      try {
        const result = await runXAutomation(
          this.options.run,
          { orgId, runId: randomUUID(), trigger: 'nightly', localDate: night, dryRun: false, by: null },
          { orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() },
          { awaitReadModels: false },
        );
        round.swept.push(orgId);
        this.options.logger.info(
          { orgId, night, counts: result.counts, dryRun: result.dryRun },
          'X automation: nightly run done',
        );
      } catch (error) {
        if (error instanceof Conflict && (error.code === 'night_done' || error.code === 'night_taken')) {
          round.taken.push(orgId);
          continue;
        }
        round.failed.push(orgId);
        this.options.logger.warn({ orgId, night, err: error }, 'X automation: nightly run failed');
      }
    }
    return round;
  }
}
