import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../infra/config/env.js';
import { loadEnv } from '../../api/env.js';

describe('configuration', () => {
  test('defaults of the README table', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      HOST: '0.0.0.0',
      DATA_DIR: '.data',
      EVENT_STORE: 'postgres',
      BUS: 'in-process',
      OBJECT_STORAGE: 'local',
      AUTH_MODE: 'local',
      LOG_LEVEL: 'info',
      PLATFORM_MODE: 'sandbox',
      PUBLISH_MAX_ATTEMPTS: 5,
      POST_NOW_WAIT_MS: 10_000,
    });
    expect(loadEnv({ NATS_URL: 'nats://127.0.0.1:4222' }).BUS).toBe('nats');
  });

  test.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ EVENT_STORE: 'mysql' }, 'EVENT_STORE'],
    [{ EVENT_STORE: 'eventstoredb' }, 'EVENTSTOREDB_URL'],
    [{ OBJECT_STORAGE: 's3' }, 'S3_BUCKET'],
    [{ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'http://localhost:2113' }, 'EVENTSTOREDB_URL'],
    [{ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_URL: 'localhost:2113' }, 'EVENTSTOREDB_URL'],
    [{ S3_PUBLIC_ENDPOINT: 'localhost:8333' }, 'S3_PUBLIC_ENDPOINT'],
    [{ S3_PUBLIC_ENDPOINT: 'https://cdn.example.org/s3' }, 'S3_PUBLIC_ENDPOINT'],
    [{ S3_PUBLIC_ENDPOINT: 'ftp://s3.example.org' }, 'S3_PUBLIC_ENDPOINT'],
    [{ AUTH_MODE: 'jwks' }, 'AUTH_JWKS_URL'],
    [{ TOKEN_ENCRYPTION_KEY: 'short' }, 'TOKEN_ENCRYPTION_KEY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PLATFORM_MODE: 'real' }, 'PLATFORM_MODE'],
    [{ LINKEDIN_API_VERSION: '2026-11' }, 'LINKEDIN_API_VERSION'],
    [{ PUBLISH_STALE_ATTEMPT_MS: '20000', PUBLISH_CALL_TIMEOUT_MS: '30000' }, 'PUBLISH_STALE_ATTEMPT_MS'],
    [{ PUBLISH_MAX_ATTEMPTS: '0' }, 'PUBLISH_MAX_ATTEMPTS'],
    [{ TOKEN_ENCRYPTION_OLD_KEYS: 'one-key' }, 'TOKEN_ENCRYPTION_OLD_KEYS'],
    [{ APP_ORIGINS: 'https://app.example.org/settings' }, 'APP_ORIGINS'],
    [{ APP_ORIGINS: 'app.example.org' }, 'APP_ORIGINS'],
    [{ APP_ORIGINS: 'ftp://app.example.org' }, 'APP_ORIGINS'],
    [{ OUTBOUND_ALLOW_ORIGINS: 'http://10.0.0.5:8080/wiki' }, 'OUTBOUND_ALLOW_ORIGINS'],
  ])('%j stops the start naming %s', (source, variable) => {
    let error: unknown;
    try {
      loadEnv(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(variable);
  });

  test('EVENTSTOREDB_URL takes kurrentdb:// and the older esdb:// connection strings', () => {
    for (const url of [
      'kurrentdb://kurrentdb:2113?tls=false',
      'kurrentdb+discover://admin:changeit@cluster.example:2113',
      'esdb://eventstore:2113?tls=false',
    ]) {
      expect(loadEnv({ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_URL: url }).EVENTSTOREDB_URL).toBe(url);
    }
  });

  test('S3_PUBLIC_ENDPOINT: an http(s) origin, unset by default', () => {
    expect(loadEnv({}).S3_PUBLIC_ENDPOINT).toBeUndefined();
    expect(loadEnv({ S3_PUBLIC_ENDPOINT: 'http://localhost:8333' }).S3_PUBLIC_ENDPOINT).toBe(
      'http://localhost:8333',
    );
  });

  test('OUTBOUND_ALLOW_ORIGINS: exact origins, none by default', () => {
    expect(loadEnv({}).OUTBOUND_ALLOW_ORIGINS).toEqual([]);
    expect(loadEnv({ OUTBOUND_ALLOW_ORIGINS: 'http://127.0.0.1:8080' }).OUTBOUND_ALLOW_ORIGINS).toEqual([
      'http://127.0.0.1:8080',
    ]);
  });

  test('APP_ORIGINS: comma-separated http(s) origins, none by default', () => {
    expect(loadEnv({}).APP_ORIGINS).toEqual([]);
    expect(loadEnv({ APP_ORIGINS: 'https://app.example.org, http://localhost:5173/' }).APP_ORIGINS).toEqual([
      'https://app.example.org',
      'http://localhost:5173',
    ]);
  });

  test('a secret value is never echoed in the message', () => {
    expect(() => loadEnv({ TOKEN_ENCRYPTION_KEY: 'my-secret-value' })).toThrow(
      expect.objectContaining({
        message: expect.not.stringContaining('my-secret-value') as unknown,
      }) as Error,
    );
  });
});
