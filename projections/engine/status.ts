// Operator view of the projections: each generation's version, status, checkpoint, lag and lease owner.
// Lag is measured through the event store port, bounded, so status stays cheap on a long log.
import type { Checkpoint } from '../../infra/event-store/port.js';
import { listGenerations } from './catalog.js';
import type { GenerationStatus } from './catalog.js';
import type { ProjectionEngineDeps } from './projection.js';

export interface ProjectionStatus {
  name: string;
  /** Version of the generation; `codeVersion` is the version this process's code would build. */
  version: number;
  codeVersion: number | null;
  generation: number;
  /** `absent`: the code has this projection but no runner has created it yet. */
  status: GenerationStatus | 'absent';
  checkpoint: Checkpoint;
  eventsProcessed: number;
  /** Events after the checkpoint that this projection will fold, counted up to `lagCap`. */
  lagEvents: number;
  /** True when there are more than `lagEvents` (the count stopped at the cap). */
  lagCapped: boolean;
  /** now − recordedAt of the oldest unprocessed event, or 0 when caught up. */
  lagMs: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  updatedAt: string;
}

/** Serving and building generations of every projection in the catalog (and of the code, when not yet started). */
export async function projectionStatus(
  deps: Pick<ProjectionEngineDeps, 'db' | 'eventStore' | 'projections'>,
  options: { lagCap?: number; now?: () => number } = {},
): Promise<ProjectionStatus[]> {
  const lagCap = options.lagCap ?? 10_000;
  const now = options.now ?? Date.now;
  const generations = (await listGenerations(deps.db)).filter((g) => g.status !== 'retired');
  const statuses: ProjectionStatus[] = [];
  for (const g of generations) {
    const projection = deps.projections.find((p) => p.name === g.name);
    const eventTypes =
      projection?.eventTypes && projection.eventTypes.length > 0 ? projection.eventTypes : undefined;
    const page = await deps.eventStore.readAll({
      from: g.checkpoint,
      filter: eventTypes ? { eventTypes } : undefined,
      limit: lagCap,
    });
    const oldest = page.events[0];
    statuses.push({
      name: g.name,
      version: g.version,
      codeVersion: projection?.version ?? null,
      generation: g.generation,
      status: g.status,
      checkpoint: g.checkpoint,
      eventsProcessed: g.eventsProcessed,
      lagEvents: page.events.length,
      lagCapped: !page.isEnd,
      lagMs: oldest ? Math.max(0, now() - Date.parse(oldest.recordedAt)) : 0,
      leaseOwner: g.leaseOwner,
      leaseExpiresAt: g.leaseExpiresAt,
      updatedAt: g.updatedAt,
    });
  }
  for (const projection of deps.projections)
    if (!generations.some((g) => g.name === projection.name))
      statuses.push({
        name: projection.name,
        version: projection.version,
        codeVersion: projection.version,
        generation: 0,
        status: 'absent',
        checkpoint: deps.eventStore.start,
        eventsProcessed: 0,
        lagEvents: 0,
        lagCapped: false,
        lagMs: 0,
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: '',
      });
  return statuses;
}
