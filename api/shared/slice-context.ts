// What the runtime builds and hands each slice (its context) and what it is built with, apart from the slice
// module itself (api/shared/slice.ts): operations (api/shared/operation.ts) and slices both name the context, so
// it lives where neither imports the other.
import type { Kysely } from 'kysely';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { IdempotencyStore } from '../../commands/shared/idempotency.js';
import type { AccountAccess } from '../../commands/social-accounts/account-access.js';
import type { Bus } from '../../infra/bus/port.js';
import type { ConnectorRegistry } from '../../infra/connectors/port.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { Database } from '../../infra/db/database.js';
import type { EventStore } from '../../infra/event-store/port.js';
import type { OutboundPolicy } from '../../infra/http/safe-fetch.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { Metrics } from '../../infra/metrics/metrics.js';
import type { ObjectStorage } from '../../infra/object-storage/port.js';
import type { Projection } from '../../projections/engine/projection.js';
import type { ProjectionCommitWaits } from '../../projections/engine/commits.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { ProcessManager } from '../../processes/runner/process-manager.js';
import type { PublisherOptions } from '../../processes/publishing/publisher.js';
import type { PublishingServiceOptions } from '../../processes/publishing/publishing-service.js';
import type { AuthService } from '../auth/auth-service.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { MembershipLookup } from '../auth/memberships.js';
import type { RouteServices } from './services.js';
import type { AnyService, ExtensionPoint, ServiceType } from './service.js';
import type { AnyTool } from './tools.js';

/**
 * What a runtime is built with (api/runtime.ts), but its slices (RuntimeOptions in slice.ts adds them). `env` is
 * the whole parsed environment (api/env.ts composes it from the slices' settings; this module cannot name that
 * type without importing every slice, so it is a parameter here).
 */
export interface RuntimeSettings<E extends PlatformEnv = PlatformEnv> {
  env: E;
  logger: Logger;
  /** `server` runs projections, processes and the outbox; `cli` only writes and reads. */
  mode: 'server' | 'cli';
  /** Replaces the registered projections (tests slow them down to prove read-your-writes). */
  projections?: readonly Projection[];
  /**
   * Seams of the publishing pipeline: a clock, randomness and hooks around the platform call (tests), and each
   * job's result (the worker counts them).
   */
  publishing?: Pick<PublisherOptions, 'now' | 'random' | 'hooks'> &
    Pick<PublishingServiceOptions, 'onJobDone'> & { sweep?: boolean; work?: boolean };
  /**
   * The policy of fetches of user-supplied URLs (media import, logo links, website reading). OUTBOUND_ALLOW_ORIGINS
   * sets `allowPrivate` to the operator's listed origins (createRuntime); tests set it to serve a "public" site from
   * loopback (`allowPrivate` for named origins) or make a public name resolve to a private address (`resolve`).
   * Unset, every loopback and private address is refused.
   */
  outbound?: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  /**
   * Tests only: one deadline, in milliseconds, in place of the production ones of fetches of user-supplied URLs
   * (media import 60 s, logo links 10 s, website pages 10 s and their stylesheets 5 s), so a test of a body
   * slower than the deadline waits a moment rather than the production limit. Never set from configuration.
   */
  fetchTimeoutMs?: number;
}

/**
 * What the runtime has built, for a slice's routes, workers and providers. Typed by what the slice declares
 * (`defineSlice` in api/shared/slice.ts): `use` takes only the services in `Uses` (what it requires or provides),
 * and `env` has the platform's variables and those of the settings it lists. The defaults (any service, the
 * platform's variables) are for code shared by slices; the runtime hands every slice the same object.
 */
export interface SliceContext<Uses extends AnyService = AnyService, E extends PlatformEnv = PlatformEnv> {
  env: E;
  logger: Logger;
  mode: RuntimeSettings['mode'];
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
  /**
   * A service a slice provides (api/shared/provider.ts), built once per runtime: only one this slice requires or
   * provides (or, in a provider's build, one it requires); anything else throws, naming the service.
   */
  use<S extends Uses>(service: S): ServiceType<S>;
  /** Every slice's entries for an extension point (api/shared/service.ts), in slice order. */
  contributions<T>(point: ExtensionPoint<T>): readonly T[];
  /** The options the runtime was built with (e.g. the publishing seams tests pass). */
  options: RuntimeSettings;
}

/** What a worker starts with: the context, plus every slice's projections and process managers. */
export interface BackgroundContext<
  Uses extends AnyService = AnyService,
  E extends PlatformEnv = PlatformEnv,
> extends SliceContext<Uses, E> {
  /** Lease owner name of this process (`host:pid`). */
  owner: string;
  projections: readonly Projection[];
  processManagers: readonly ProcessManager[];
  /** Wake-ups on projection commits (server mode), for workers that sleep until a read model changes. */
  projectionCommits: ProjectionCommitWaits;
}
