// What a slice brings to the service, declared once in its own module (api/<slice>/slice.ts): migrations,
// projections, process managers, routes, background workers and settings. The runtime (api/runtime.ts) loops
// over the list in api/slices.ts instead of naming each piece; docs/adding-a-slice.md says how to add one.
import type { Kysely, Migration } from 'kysely';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { IdempotencyStore } from '../../commands/shared/idempotency.js';
import type { AccountAccess } from '../../commands/social-accounts/account-access.js';
import { settingsFragments, type Env, type Settings } from '../../infra/config/env.js';
import type { Bus } from '../../infra/bus/port.js';
import type { ConnectorRegistry } from '../../infra/connectors/port.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { Database } from '../../infra/db/database.js';
import type { EventStore } from '../../infra/event-store/port.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { Metrics } from '../../infra/metrics/metrics.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import type { Projection } from '../../projections/engine/projection.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { ProcessManager } from '../../processes/runner/process-manager.js';
import type { RouteInstaller } from '../app.js';
import type { AuthService } from '../auth/auth-service.js';
import type { MembershipLookup } from '../auth/memberships.js';
import type { RuntimeOptions } from '../runtime.js';
import type { RouteServices } from './services.js';
import type { OperationGroup } from './operation.js';
import type { AnyTool } from './tools.js';

/** One migration: `<4-digit number>_<name>`, run in number order with every slice's migrations. */
export type SliceMigration = readonly [name: string, migration: Migration];

/** What the runtime has built, for a slice's routes and workers. */
export interface SliceContext {
  env: Env;
  logger: Logger;
  mode: RuntimeOptions['mode'];
  database: Database<ReadModels>;
  readModels: Kysely<ReadModels>;
  eventStore: EventStore<unknown>;
  /** Null in `cli` mode. */
  bus: Bus | null;
  storage: ObjectStorage;
  auth: AuthService;
  commands: CommandDeps;
  idempotency: IdempotencyStore;
  connectors: ConnectorRegistry;
  accounts: AccountAccess;
  tokenCipher: TokenCipher;
  metrics: Metrics;
  /** The user's current role in a workspace (cached, dropped on every membership change), or null. */
  roleOf: MembershipLookup;
  /** Every slice's assistant tools, in slice order (for the tool server; built once, on first call). */
  tools(): readonly AnyTool[];
  /** What every slice's routes share; a slice adds its own services in its module (`{ ...services, mine }`). */
  services: RouteServices;
  publicBaseUrl: string;
  /** The options the runtime was built with (e.g. the publishing seams tests pass). */
  options: RuntimeOptions;
}

/** What a worker starts with: the context, plus every slice's projections and process managers. */
export interface BackgroundContext extends SliceContext {
  /** Lease owner name of this process (`host:pid`). */
  owner: string;
  projections: readonly Projection[];
  processManagers: readonly ProcessManager[];
}

export interface RunningWorker {
  stop(): Promise<void>;
}

/** Background work of a slice; started by `startBackground` in slice order and stopped in reverse. */
export interface BackgroundWorker {
  name: string;
  /** Starts the worker; undefined when it does not run in this configuration (e.g. it needs the bus). */
  start(ctx: BackgroundContext): Promise<RunningWorker | undefined>;
}

export interface Slice {
  /** e.g. 'post-groups'; named in start-up errors. */
  name: string;
  /** In number order; numbers are unique across slices (checked at start, see `composeSlices`). */
  migrations?: readonly SliceMigration[];
  /** Read models; also what read-your-writes waits for. */
  projections?: readonly Projection[];
  processManagers?: readonly ProcessManager[];
  /**
   * The slice's operations (api/shared/operation.ts): each one declaration from which its route and, where it
   * has one, its tool are made. Their routes go into the app before the slice's other `routes`.
   */
  operations?: readonly OperationGroup[];
  /** Route installers, in the order they go into the app (the OpenAPI document lists paths in that order). */
  routes?(ctx: SliceContext): readonly RouteInstaller[];
  workers?: readonly BackgroundWorker[];
  /** Assistant tools (api/shared/tools.ts), declared beside the routes they mirror; served at /mcp. */
  tools?(ctx: SliceContext): readonly AnyTool[];
  /** The slice's own environment variables: one of `settingsFragments` in infra/config/env.ts. */
  settings?: Settings;
}

/** The `{ name: migration }` objects adapters export, as one list in name (= number) order. */
export function migrationsOf(...records: Record<string, Migration>[]): SliceMigration[] {
  return records.flatMap((record) => Object.entries(record)).sort(([a], [b]) => (a < b ? -1 : 1));
}

/**
 * Migration numbers used twice before numbers were checked, allowed as exactly these pairs. Existing databases
 * have run both under these names (kysely records names in `schema_migrations`, and refuses to start when an
 * executed migration is missing), so neither is renamed. No other number may repeat.
 */
export const historicMigrationNumberReuse: readonly (readonly [string, string])[] = [
  ['0007_sandbox', '0007_social_account_tokens'],
];

export class SliceConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SliceConflict';
  }
}

const migrationName = /^(\d{4})_[a-z0-9_]+$/;

/**
 * Every slice's migrations as one object in name (= number) order. Stops with a SliceConflict naming both
 * slices and keys when a key or a number is declared twice (except `historicMigrationNumberReuse`), when a
 * name is not `<4-digit number>_<name>`, or when a slice lists its migrations out of order.
 */
export function collectMigrations(
  slices: readonly Slice[],
  allowedReuse: readonly (readonly [string, string])[] = historicMigrationNumberReuse,
): Record<string, Migration> {
  const byName = new Map<string, { slice: string; migration: Migration }>();
  const byNumber = new Map<string, Array<{ slice: string; name: string }>>();
  const allowed = (a: string, b: string) =>
    allowedReuse.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
  let highest = 0;
  const all = slices.flatMap((slice) => (slice.migrations ?? []).map(([name]) => ({ slice, name })));
  for (const { name } of all) {
    const number = migrationName.exec(name)?.[1];
    if (number) highest = Math.max(highest, Number(number));
  }
  const nextFree = String(highest + 1).padStart(4, '0');
  for (const slice of slices) {
    let previous: string | undefined;
    for (const [name, migration] of slice.migrations ?? []) {
      const number = migrationName.exec(name)?.[1];
      if (!number)
        throw new SliceConflict(
          `Slice "${slice.name}": migration "${name}" must be named <4-digit number>_<lower_case_name>, e.g. "${nextFree}_${slice.name.replace(/\W/g, '_')}"`,
        );
      if (previous !== undefined && name <= previous)
        throw new SliceConflict(
          `Slice "${slice.name}" lists migration "${name}" after "${previous}": list a slice's migrations in number order`,
        );
      previous = name;
      const same = byName.get(name);
      if (same)
        throw new SliceConflict(
          `Migration "${name}" is declared twice: by slice "${same.slice}" and by slice "${slice.name}"`,
        );
      for (const other of byNumber.get(number) ?? []) {
        if (!allowed(other.name, name))
          throw new SliceConflict(
            `Migration number ${number} is used twice: "${other.name}" (slice "${other.slice}") and "${name}" (slice "${slice.name}"); give the newer one the next free number, ${nextFree}`,
          );
      }
      byName.set(name, { slice: slice.name, migration });
      byNumber.set(number, [...(byNumber.get(number) ?? []), { slice: slice.name, name }]);
    }
  }
  return Object.fromEntries(
    [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([n, m]) => [n, m.migration]),
  );
}

export interface ComposedSlices {
  migrations: Record<string, Migration>;
  projections: readonly Projection[];
  processManagers: readonly ProcessManager[];
}

function unique(kind: string, entries: ReadonlyArray<{ slice: string; name: string }>): void {
  const seen = new Map<string, string>();
  for (const { slice, name } of entries) {
    const other = seen.get(name);
    if (other !== undefined)
      throw new SliceConflict(
        kind === 'Slice'
          ? `Slice "${name}" is declared twice`
          : `${kind} "${name}" is declared twice: by slice "${other}" and by slice "${slice}"`,
      );
    seen.set(name, slice);
  }
}

/** Checks the slices fit together and gathers what the runtime runs; a SliceConflict stops the start. */
export function composeSlices(slices: readonly Slice[]): ComposedSlices {
  unique(
    'Slice',
    slices.map((s) => ({ slice: s.name, name: s.name })),
  );
  for (const slice of slices) {
    if (slice.settings && !(settingsFragments as readonly Settings[]).includes(slice.settings))
      throw new SliceConflict(
        `Slice "${slice.name}" declares settings the environment schema does not include: add them to settingsFragments in infra/config/env.ts`,
      );
  }
  const projections = slices.flatMap((s) =>
    (s.projections ?? []).map((p) => ({ slice: s.name, name: p.name, p })),
  );
  unique('Projection', projections);
  const processes = slices.flatMap((s) =>
    (s.processManagers ?? []).map((p) => ({ slice: s.name, name: p.name, p })),
  );
  unique('Process manager', processes);
  return {
    migrations: collectMigrations(slices),
    projections: projections.map((e) => e.p),
    processManagers: processes.map((e) => e.p),
  };
}
