// The connector registry: sandbox or live per platform from PLATFORM_MODE and SANDBOX_PLATFORMS, a clear refusal
// for live platforms without a connector in this build, one connector per platform, bad settings stop the start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platforms } from '../../domain/shared/platforms.js';
import { ConfigError } from '../../infra/config/env.js';
import { loadEnv } from '../../api/env.js';
import { TokenCipher } from '../../infra/crypto/token-cipher.js';
import { ConnectorError, type PlatformConnector } from '../../infra/connectors/port.js';
import { createConnectorRegistry, sandboxPlatforms } from '../../infra/connectors/registry.js';
import { sandboxMigrations, type SandboxTables } from '../../infra/connectors/sandbox/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase<SandboxTables>;
const cipher = new TokenCipher([{ version: 1, key: Buffer.alloc(32, 7) }]);

beforeAll(async () => {
  database = await createTestDatabase<SandboxTables>(sandboxMigrations);
});
afterAll(async () => {
  await database?.drop();
});

const registryFor = (
  env: Record<string, string>,
  live?: Parameters<typeof createConnectorRegistry>[0]['live'],
) =>
  createConnectorRegistry({
    env: loadEnv(env),
    db: database.db,
    publicBaseUrl: 'http://localhost:3000',
    cipher,
    ...(live ? { live } : {}),
  });

describe('connector registry', () => {
  it('PLATFORM_MODE=sandbox (the default): every platform is the sandbox, built once', () => {
    const registry = registryFor({});
    for (const platform of platforms) {
      const connector = registry.get(platform);
      expect(connector).toMatchObject({ platform, mode: 'sandbox' });
      expect(connector.missingConfiguration()).toEqual([]);
      expect(registry.get(platform)).toBe(connector);
    }
  });

  it('PLATFORM_MODE=live: SANDBOX_PLATFORMS stay in the sandbox, others use their live factory once', () => {
    let built = 0;
    const liveX = { platform: 'x', mode: 'live' } as unknown as PlatformConnector;
    const registry = registryFor(
      { PLATFORM_MODE: 'live', SANDBOX_PLATFORMS: 'bluesky, tiktok' },
      {
        x: () => {
          built += 1;
          return liveX;
        },
      },
    );
    expect(registry.get('bluesky').mode).toBe('sandbox');
    expect(registry.get('tiktok').mode).toBe('sandbox');
    expect(registry.get('x')).toBe(liveX);
    expect(registry.get('x')).toBe(liveX);
    expect(built).toBe(1);
    expect([
      ...sandboxPlatforms(loadEnv({ PLATFORM_MODE: 'live', SANDBOX_PLATFORMS: 'bluesky,tiktok' })),
    ]).toEqual(['bluesky', 'tiktok']);
  });

  it('a live platform without a live connector in this build says so and refuses every call (permanent)', async () => {
    const connector = registryFor({ PLATFORM_MODE: 'live' }).get('reddit');
    expect(connector.mode).toBe('live');
    expect(connector.missingConfiguration()).toEqual(['live reddit connector (not available in this build)']);
    const error = await connector
      .startAuthorization({ state: 's', callbackUrl: 'http://localhost:3000/cb', codeChallenge: 'c' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ kind: 'permanent' });
    expect((error as Error).message).toContain('not available');
  });

  it('a bad SANDBOX_FAULTS or SANDBOX_PLATFORMS stops the start with a message naming the variable', () => {
    const fail = (env: Record<string, string>) => {
      try {
        registryFor(env);
      } catch (error) {
        return error;
      }
      return null;
    };
    const faults = fail({ SANDBOX_FAULTS: 'fail=1.5' });
    expect(faults).toBeInstanceOf(ConfigError);
    expect((faults as ConfigError).problems[0]).toMatch(/^SANDBOX_FAULTS: .*between 0 and 1/);
    const listed = fail({ PLATFORM_MODE: 'live', SANDBOX_PLATFORMS: 'x,myspace' });
    expect(listed).toBeInstanceOf(ConfigError);
    expect((listed as ConfigError).problems[0]).toMatch(/^SANDBOX_PLATFORMS: "myspace" is not a platform/);
  });
});
