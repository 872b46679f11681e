// What feature routes need from the composition root: the write path, idempotency records and read models.
import type { Kysely } from 'kysely';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { IdempotencyStore } from '../../commands/shared/idempotency.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { ConnectorRegistry } from '../../infra/connectors/port.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { AccountAccess } from '../../commands/social-accounts/account-access.js';

export interface RouteServices {
  commands: CommandDeps;
  idempotency: IdempotencyStore;
  readModels: Kysely<ReadModels>;
  /** Platform connectors (sandbox or live per platform). */
  connectors: ConnectorRegistry;
  /** Seals social account tokens and OAuth secrets at rest. */
  tokenCipher: TokenCipher;
  /** The service's public address, for OAuth callbacks and the Bluesky client metadata. */
  publicBaseUrl: string;
  /** The platform's variables (a slice reads its own settings from its context's `env`). */
  env: PlatformEnv;
  /** The social accounts platform calls act for (resolution, tokens, refresh). */
  accounts: AccountAccess;
  now?: () => Date;
}
