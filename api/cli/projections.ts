// `projections status` and `projections rebuild <name>`: the operator's view of lag and the rebuild driver.
// Output is plain lines through `out`, so the CLI entry prints them and tests read them.
import type { ReadModels } from '../../projections/read-models.js';
import type { Kysely } from 'kysely';
import type { EventStore } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import { UnknownProjection, type Projection } from '../../projections/engine/projection.js';
import { rebuildProjection, type RebuildProgress } from '../../projections/engine/rebuild.js';
import { projectionStatus, type ProjectionStatus } from '../../projections/engine/status.js';

export interface ProjectionsCommandDeps {
  db: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  projections: readonly Projection[];
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  out: (line: string) => void;
  /** Minimum time between two progress lines (the first and the last are always printed). */
  progressIntervalMs?: number;
}

const USAGE = 'usage: projections status | projections rebuild <name>';
const n = (value: number) => Math.round(value).toLocaleString('en-US');

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function formatProgress(p: RebuildProgress): string {
  if (p.phase === 'waiting')
    return `rebuild ${p.projection}: waiting for generation ${p.generation}, leased by ${p.leaseOwner ?? 'nobody'} (${n(p.eventsProcessed)} events so far)`;
  const total = p.totalEvents === null ? '?' : n(p.totalEvents);
  const eta = p.etaSeconds === null ? 'unknown' : formatDuration(p.etaSeconds * 1000);
  return `rebuild ${p.projection}: ${n(p.eventsProcessed)}/${total} events, ${n(p.eventsPerSecond)} ev/s, position ${p.position}, ETA ${eta}`;
}

function formatTable(rows: ProjectionStatus[]): string[] {
  const header = [
    'projection',
    'version',
    'gen',
    'status',
    'processed',
    'lag',
    'lag time',
    'lease owner',
    'checkpoint',
  ];
  const cells = rows.map((r) => [
    r.name,
    r.codeVersion !== null && r.codeVersion !== r.version
      ? `${r.version} (code ${r.codeVersion})`
      : String(r.version),
    String(r.generation),
    r.status,
    n(r.eventsProcessed),
    `${n(r.lagEvents)}${r.lagCapped ? '+' : ''}`,
    formatDuration(r.lagMs),
    r.leaseOwner ?? '-',
    r.checkpoint,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

export async function projectionsCommand(args: string[], deps: ProjectionsCommandDeps): Promise<number> {
  const [sub, name, ...rest] = args;
  if (sub === 'status' && name === undefined) {
    const rows = await projectionStatus(deps);
    if (rows.length === 0) deps.out('no projections');
    else for (const line of formatTable(rows)) deps.out(line);
    return 0;
  }
  if (sub === 'rebuild' && name !== undefined && rest.length === 0) {
    const interval = deps.progressIntervalMs ?? 1000;
    let lastLine = 0;
    try {
      const result = await rebuildProjection(deps, name, {
        onProgress: (p) => {
          if (p.phase === 'switched') return;
          const now = Date.now();
          if (lastLine !== 0 && now - lastLine < interval) return;
          lastLine = now;
          deps.out(formatProgress(p));
        },
      });
      const who = result.switchedBy === 'self' ? '' : ' (finished by another process)';
      const retired =
        result.retiredGeneration === null ? '' : `, generation ${result.retiredGeneration} dropped`;
      const resumed = result.resumedFrom > 0 ? `, resumed at ${n(result.resumedFrom)}` : '';
      deps.out(
        `rebuild ${result.projection}: done${who}: generation ${result.generation} (v${result.version}) serving, ` +
          `${n(result.eventsProcessed)} events${resumed}, position ${result.checkpoint}${retired}, ` +
          `took ${formatDuration(result.durationMs)}`,
      );
      return 0;
    } catch (error) {
      if (error instanceof UnknownProjection) {
        deps.out(error.message);
        return 2;
      }
      deps.logger.error({ err: error, projection: name }, 'rebuild failed');
      deps.out(`rebuild ${name}: failed: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  }
  deps.out(USAGE);
  return 2;
}
