// The connector registry: which platforms are simulated by the sandbox and which talk to the real platform,
// with each connector built once per process.
import type { Kysely } from 'kysely';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import { ConfigError } from '../config/env.js';
import type { SocialAccountEnv } from './settings.js';
import type { TokenCipher } from '../crypto/token-cipher.js';
import { ConnectorError, type ConnectorRegistry, type PlatformConnector } from './port.js';
import { databaseFaultSource, SandboxFaultsError, type SandboxFaultSource } from './sandbox/faults.js';
import type { SandboxTables } from './sandbox/migrations.js';
import { createSandboxConnector } from './sandbox/sandbox-connector.js';

export interface ConnectorRegistryOptions {
  env: SocialAccountEnv;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  publicBaseUrl: string;
  /** For live connectors that keep sealed state of their own (Bluesky OAuth sessions). */
  cipher: TokenCipher;
  /** Live connector factories by platform; a live-mode platform without one answers "not available". */
  live?: Partial<Record<Platform, () => PlatformConnector>>;
  /** Replaces the database-backed fault source (tests). */
  faults?: SandboxFaultSource;
}

/** The platforms the sandbox serves: all of them with PLATFORM_MODE=sandbox, else those in SANDBOX_PLATFORMS. */
export function sandboxPlatforms(
  env: Pick<SocialAccountEnv, 'PLATFORM_MODE' | 'SANDBOX_PLATFORMS'>,
): Set<Platform> {
  if (env.PLATFORM_MODE === 'sandbox') return new Set(platforms);
  const listed = (env.SANDBOX_PLATFORMS ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = listed.filter((p) => !(platforms as readonly string[]).includes(p));
  if (unknown.length > 0)
    throw new ConfigError([
      `SANDBOX_PLATFORMS: ${unknown.map((p) => `"${p}"`).join(', ')} is not a platform (${platforms.join(', ')})`,
    ]);
  return new Set(listed as Platform[]);
}

/** A live-mode platform whose live connector is not part of this build: it says so and refuses every call. */
function unavailableConnector(platform: Platform): PlatformConnector {
  const refuse = async (): Promise<never> => {
    throw new ConnectorError('permanent', `${platform}: the live connector is not available in this build`);
  };
  return {
    platform,
    mode: 'live',
    supportsRefresh: false,
    missingConfiguration: () => [`live ${platform} connector (not available in this build)`],
    startAuthorization: refuse,
    completeAuthorization: refuse,
    refresh: refuse,
    publish: refuse,
    checkStatus: refuse,
    delete: refuse,
    accountInfo: refuse,
    fetchMetrics: refuse,
    accountStats: refuse,
  };
}

export function createConnectorRegistry(options: ConnectorRegistryOptions): ConnectorRegistry {
  const sandboxed = sandboxPlatforms(options.env);
  let faults = options.faults;
  if (!faults && sandboxed.size > 0) {
    try {
      faults = databaseFaultSource({
        db: options.db as Kysely<SandboxTables>,
        configured: options.env.SANDBOX_FAULTS,
      });
    } catch (error) {
      if (error instanceof SandboxFaultsError) throw new ConfigError([`SANDBOX_FAULTS: ${error.message}`]);
      throw error;
    }
  }
  const built = new Map<Platform, PlatformConnector>();
  const build = (platform: Platform): PlatformConnector => {
    if (sandboxed.has(platform))
      return createSandboxConnector(platform, {
        db: options.db,
        publicBaseUrl: options.publicBaseUrl,
        faults: faults!,
        pendingMs: options.env.SANDBOX_PENDING_MS,
      });
    const factory = options.live?.[platform];
    return factory ? factory() : unavailableConnector(platform);
  };
  return {
    get(platform) {
      let connector = built.get(platform);
      if (!connector) {
        if (!(platforms as readonly string[]).includes(platform))
          throw new ConnectorError('permanent', `"${String(platform)}" is not a platform`);
        connector = build(platform);
        built.set(platform, connector);
      }
      return connector;
    },
  };
}
