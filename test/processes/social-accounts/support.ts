// Test doubles for social account token tests: a hand-made connector whose refresh the test controls and
// counts, a registry of them, and a connected account recorded through connectSocialAccounts.
import { randomBytes, randomUUID } from 'node:crypto';
import { eventStoreMigrations } from '../../../infra/event-store/postgres/migrations.js';
import { projectionEngineMigrations } from '../../../projections/engine/migrations.js';
import { socialAccountStream } from '../../../commands/social-accounts/social-account-commands.js';
import { TokenCipher } from '../../../infra/crypto/token-cipher.js';
import { PostgresEventStore } from '../../../infra/event-store/postgres/postgres-event-store.js';
import { createLogger } from '../../../infra/logging/logger.js';
import { socialAccountTokenMigrations, TokenStore } from '../../../infra/social-accounts/token-store.js';
import { ProjectionWaiter } from '../../../projections/engine/read-your-writes.js';
import { ProjectionRunner } from '../../../projections/engine/runner.js';
import type { ReadModels } from '../../../projections/read-models.js';
import { socialAccountsProjection } from '../../../projections/social-accounts/social-accounts-projection.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import type { Platform } from '../../../domain/shared/platforms.js';
import {
  ConnectorError,
  type AccountProfile,
  type AccountRef,
  type ConnectorRegistry,
  type PlatformConnector,
  type TokenSet,
} from '../../../infra/connectors/port.js';
import type { CommandDeps, CommandMetadata } from '../../../commands/shared/command-handler.js';

export interface FakeConnector extends PlatformConnector {
  /** Every refresh call, with the refresh token it was given. */
  refreshCalls: Array<{ accountId: string; refreshToken: string | null }>;
  /** What the next refreshes do; default: new tokens valid for an hour from `clock()`. */
  onRefresh: (account: AccountRef, tokens: TokenSet, n: number) => Promise<TokenSet>;
}

export function fakeConnector(
  platform: Platform,
  options: { supportsRefresh?: boolean; refreshesAccessToken?: boolean; clock?: () => Date } = {},
): FakeConnector {
  const clock = options.clock ?? (() => new Date());
  const refuse = async (): Promise<never> => {
    throw new Error('not used in these tests');
  };
  const connector: FakeConnector = {
    platform,
    mode: 'sandbox',
    supportsRefresh: options.supportsRefresh ?? true,
    ...(options.refreshesAccessToken ? { refreshesAccessToken: true } : {}),
    missingConfiguration: () => [],
    refreshCalls: [],
    onRefresh: async (_account, _tokens, n) => ({
      accessToken: `access-${n}`,
      refreshToken: `refresh-${n}`,
      expiresAt: new Date(clock().getTime() + 3_600_000).toISOString(),
      scopes: ['read', 'write'],
    }),
    async refresh(account, tokens) {
      connector.refreshCalls.push({ accountId: account.id, refreshToken: tokens.refreshToken });
      return connector.onRefresh(account, tokens, connector.refreshCalls.length);
    },
    startAuthorization: refuse,
    completeAuthorization: refuse,
    publish: refuse,
    checkStatus: refuse,
    delete: refuse,
    accountInfo: refuse,
    fetchMetrics: refuse,
    accountStats: refuse,
  };
  return connector;
}

export function registryOf(...connectors: PlatformConnector[]): ConnectorRegistry {
  return {
    get(platform) {
      const found = connectors.find((c) => c.platform === platform);
      if (!found) throw new Error(`no fake connector for ${platform}`);
      return found;
    },
  };
}

export const refusedRefresh = () => new ConnectorError('auth', 'invalid_grant', { status: 400 });

export function profileOf(handle: string, externalId = `ext-${handle}`): AccountProfile {
  return {
    accountExternalId: externalId,
    accountName: handle.toUpperCase(),
    accountHandle: handle,
    profileImageUrl: null,
    profileUrl: `https://platform.example/${handle}`,
    accountBio: null,
  };
}

export function tokensOf(
  accessToken: string,
  expiresAt: Date | null,
  refreshToken: string | null = 'refresh-0',
): TokenSet {
  return {
    accessToken,
    refreshToken,
    expiresAt: expiresAt ? expiresAt.toISOString() : null,
    scopes: ['read', 'write'],
  };
}

export function systemMetadata(orgId: string, now = new Date()): CommandMetadata {
  return { orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() };
}

/** An event store, the social_accounts projection running and read-your-writes, on a fresh database. */
export interface AccountsHarness {
  database: TestDatabase<ReadModels>;
  commands: CommandDeps;
  cipher: TokenCipher;
  tokens: TokenStore;
  stop(): Promise<void>;
}

export async function startAccountsHarness(): Promise<AccountsHarness> {
  const database = await createTestDatabase<ReadModels>({
    ...eventStoreMigrations,
    ...projectionEngineMigrations,
    ...socialAccountTokenMigrations,
  });
  const eventStore = new PostgresEventStore({ db: database.db, url: database.url });
  const runner = new ProjectionRunner({
    db: database.db,
    eventStore,
    projections: [socialAccountsProjection],
    logger: silentLogger,
    owner: `test-${randomUUID()}`,
  });
  await runner.start();
  const waiter = new ProjectionWaiter({ db: database.db, eventStore, url: database.url });
  const commands: CommandDeps = {
    eventStore,
    waitForProjections: (position, o) =>
      waiter.waitForProjections(position, {
        ...o,
        projections: [socialAccountsProjection.name],
        versions: { [socialAccountsProjection.name]: socialAccountsProjection.version },
      }),
  };
  const cipher = new TokenCipher([{ version: 1, key: randomBytes(32) }]);
  return {
    database,
    commands,
    cipher,
    tokens: new TokenStore(database.db, cipher),
    async stop() {
      await runner.stop();
      await waiter.close();
      await eventStore.close();
      await database.drop();
    },
  };
}

export const silentLogger = createLogger({ level: 'silent' });

/** The social account stream's event types, in order. */
export async function accountEventTypes(commands: CommandDeps, accountId: string): Promise<string[]> {
  return (await commands.eventStore.readStream(socialAccountStream(accountId))).map((e) => e.type);
}
