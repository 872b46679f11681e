// Social account commands: connect (tokens sealed first, then the event), profile URL, delete, disconnect, and
// the token-health records (refreshed, refresh failed, expiring) the publishing pipeline and refresher append.
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import { NotFound } from '../../domain/shared/errors.js';
import {
  socialAccountCategory,
  socialAccountDecider,
  socialAccountId,
  socialAccountView,
  type SocialAccount,
  type SocialAccountCommand,
  type SocialAccountState,
  type SocialAccountView,
} from '../../domain/social-accounts/social-account.js';
import type { ConnectedAccount, ConnectorRegistry } from '../../infra/connectors/port.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import { streamName, type Checkpoint } from '../../infra/event-store/port.js';
import { TokenStore } from '../../infra/social-accounts/token-store.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  awaitReadModels,
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';

export type { SocialAccountView };

export const socialAccountStream = (accountId: string) => streamName(socialAccountCategory, accountId);

export interface SocialAccountDeps {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  tokens: TokenStore;
  connectors: ConnectorRegistry;
  now: () => Date;
}

/** The parts of the route services these commands use (RouteServices has them all). */
export interface SocialAccountServices {
  commands: CommandDeps;
  readModels: Kysely<ReadModels>;
  tokenCipher: TokenCipher;
  connectors: ConnectorRegistry;
  now?: () => Date;
}

// One token store per database and cipher, so its in-process lock queue is shared by every caller.
const tokenStores = new WeakMap<object, WeakMap<TokenCipher, TokenStore>>();

export function tokenStoreFor(db: Kysely<ReadModels>, cipher: TokenCipher): TokenStore {
  let byCipher = tokenStores.get(db);
  if (!byCipher) tokenStores.set(db, (byCipher = new WeakMap()));
  let store = byCipher.get(cipher);
  if (!store) byCipher.set(cipher, (store = new TokenStore(db, cipher)));
  return store;
}

export function socialAccountDeps(services: SocialAccountServices): SocialAccountDeps {
  return {
    commands: services.commands,
    readModels: services.readModels,
    tokens: tokenStoreFor(services.readModels, services.tokenCipher),
    connectors: services.connectors,
    now: services.now ?? (() => new Date()),
  };
}

/** The side write (the idempotency record) receives the answer the write will give. */
export interface SocialAccountWriteOptions extends SideWriteOption<SocialAccountView> {
  /** Seed from the Idempotency-Key: the same key yields the same event ids. */
  idempotencySeed?: string;
}

export interface SocialAccountWriteResult {
  account: SocialAccountView;
  /** False when nothing changed (nothing appended). */
  appended: boolean;
}

/** The account as the caller's workspace sees it: deleted, unknown or another workspace's is not found. */
function inWorkspace(state: SocialAccountState, orgId: string): SocialAccount {
  if (state.kind !== 'active' || state.account.orgId !== orgId)
    throw new NotFound('Social account not found');
  return state.account;
}

export async function loadSocialAccount(
  deps: Pick<CommandDeps, 'eventStore'>,
  accountId: string,
): Promise<SocialAccountState> {
  const { state } = await loadAggregate(
    deps.eventStore,
    socialAccountStream(accountId),
    socialAccountDecider,
  );
  return state;
}

/** The live (not deleted) account of the workspace, from its stream; NotFound otherwise. */
export async function getLiveSocialAccount(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  accountId: string,
): Promise<SocialAccount> {
  return inWorkspace(await loadSocialAccount(deps, accountId), orgId);
}

// --------------------------------------------------------------------------------------------- connect

export interface ConnectInput {
  orgId: string;
  platform: Platform;
  accounts: ConnectedAccount[];
}

/**
 * Records accounts a platform just granted (OAuth callback, Bluesky app password, LinkedIn pages): for each,
 * the tokens are sealed and saved first, then the connect (or reconnect) is appended. A failed append leaves
 * an unused token row; the other order could leave a connected account without tokens. Answers the accounts
 * as connected, once the read models show them all.
 */
export async function connectSocialAccounts(
  deps: SocialAccountDeps,
  input: ConnectInput,
  metadata: CommandMetadata,
  options: SideWriteOption<SocialAccountView[]> & { idempotencySeed?: string } = {},
): Promise<SocialAccountView[]> {
  const { orgId, platform } = input;
  // One platform account listed twice (a platform answering with duplicates) is connected once.
  const unique = [...new Map(input.accounts.map((a) => [a.profile.accountExternalId, a])).values()];
  const views: SocialAccountView[] = [];
  let lastPosition: Checkpoint | null = null;
  for (const [index, connected] of unique.entries()) {
    const { profile, tokens } = connected;
    const accountId = socialAccountId(orgId, platform, profile.accountExternalId);
    await deps.tokens.save(orgId, accountId, tokens);
    const command: SocialAccountCommand = {
      type: 'ConnectSocialAccount',
      accountId,
      orgId,
      platform,
      accountExternalId: profile.accountExternalId,
      profile: {
        accountName: profile.accountName,
        accountHandle: profile.accountHandle,
        profileImageUrl: profile.profileImageUrl,
        profileUrl: profile.profileUrl,
        accountBio: profile.accountBio,
        xSubscription: platform === 'x' ? (profile.xSubscription ?? null) : null,
      },
      scopes: [...tokens.scopes],
      tokenExpiresAt: tokens.expiresAt,
      now: metadata.now,
    };
    const isLast = index === unique.length - 1;
    const sideWrite = options.sideWrite;
    const outcome = await handleCommand(deps.commands, {
      stream: socialAccountStream(accountId),
      decider: socialAccountDecider,
      command,
      metadata: { ...metadata, orgId },
      eventId: deterministicEventIds(options.idempotencySeed, 'socialAccount', accountId),
      // The idempotency record goes with the last append, when every answer is known.
      sideWrite:
        isLast && sideWrite
          ? (trx, o) => sideWrite(trx, [...views, socialAccountView(inWorkspace(o.state, orgId))])
          : undefined,
      awaitReadModels: false,
    });
    views.push(socialAccountView(inWorkspace(outcome.state, orgId)));
    if (outcome.position) lastPosition = outcome.position;
  }
  if (lastPosition) await awaitReadModels(deps.commands, lastPosition);
  return views;
}

// ------------------------------------------------------------------------------------ account writes

/** A command as the callers give it: its time comes from the metadata, so every event is stamped alike. */
type Untimed<C> = C extends unknown ? Omit<C, 'now'> : never;

/** The account a command is for, and the workspace it must belong to. */
type AccountRef = { id: string; orgId: string };

async function runAccountCommand(
  deps: SocialAccountDeps,
  account: AccountRef,
  metadata: CommandMetadata,
  options: SocialAccountWriteOptions,
  command: Untimed<SocialAccountCommand>,
  answerFrom: 'after' | 'before',
): Promise<SocialAccountWriteResult> {
  const { orgId } = account;
  const sideWrite = options.sideWrite;
  const answer = (o: { state: SocialAccountState; before: SocialAccountState }) =>
    socialAccountView(answerFrom === 'after' ? inWorkspace(o.state, orgId) : inWorkspace(o.before, orgId));
  const outcome = await handleCommand(deps.commands, {
    stream: socialAccountStream(account.id),
    decider: socialAccountDecider,
    command: (state) => {
      inWorkspace(state, orgId);
      return { ...command, now: metadata.now };
    },
    metadata: { ...metadata, orgId },
    eventId: deterministicEventIds(options.idempotencySeed, 'socialAccount', account.id),
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, answer(o)) : undefined,
  });
  return { account: answer(outcome), appended: outcome.events.length > 0 };
}

/** PATCH profileUrl: an http(s) URL, or null to clear it; kept over the platform's on a reconnect. */
export async function updateSocialAccountProfileUrl(
  deps: SocialAccountDeps,
  orgId: string,
  accountId: string,
  profileUrl: string | null,
  metadata: CommandMetadata,
  options: SocialAccountWriteOptions = {},
): Promise<SocialAccountWriteResult> {
  const command = { type: 'SetProfileUrl', profileUrl } as const;
  return runAccountCommand(deps, { id: accountId, orgId }, metadata, options, command, 'after');
}

/**
 * DELETE: the account leaves the list and its tokens are dropped; answers the account as it was. The tokens
 * go after the append, so a refused delete keeps them; a crash in between leaves a row the refresher removes.
 */
export async function deleteSocialAccount(
  deps: SocialAccountDeps,
  orgId: string,
  accountId: string,
  metadata: CommandMetadata,
  options: SocialAccountWriteOptions = {},
): Promise<SocialAccountWriteResult> {
  const command = { type: 'DeleteSocialAccount' } as const;
  const result = await runAccountCommand(
    deps,
    { id: accountId, orgId },
    metadata,
    options,
    command,
    'before',
  );
  await deps.tokens.delete(orgId, accountId);
  return result;
}

/** The platform revoked access or the user disconnected it elsewhere: status `disconnected`. */
export async function disconnectSocialAccount(
  deps: SocialAccountDeps,
  orgId: string,
  accountId: string,
  reason: string,
  metadata: CommandMetadata,
): Promise<SocialAccountWriteResult> {
  const command = { type: 'DisconnectSocialAccount', reason } as const;
  return runAccountCommand(deps, { id: accountId, orgId }, metadata, {}, command, 'after');
}

// ------------------------------------------------------------------------------ token health records

/** What the token-health records need: the write path only (they run outside any request). */
export type TokenHealthDeps = Pick<SocialAccountDeps, 'commands'>;

type TokenHealthCommand = Extract<
  SocialAccountCommand,
  { type: 'RecordTokensRefreshed' | 'RecordRefreshFailed' | 'RecordTokenExpiring' }
>;

/**
 * Appends a token-health record. These never refuse: on a deleted, unknown or no-longer-connected account
 * the decider records nothing, and the answer is whether something was appended. With `visible`, waits (best
 * effort) until the read models show it, for a status change the caller is about to report; a lagging read
 * model does not turn the record into a failure, since it is already appended.
 */
async function recordTokenHealth(
  deps: TokenHealthDeps,
  account: AccountRef,
  metadata: CommandMetadata,
  command: Untimed<TokenHealthCommand>,
  visible = false,
): Promise<boolean> {
  const outcome = await handleCommand(deps.commands, {
    stream: socialAccountStream(account.id),
    decider: socialAccountDecider,
    command: { ...command, now: metadata.now },
    metadata: { ...metadata, orgId: account.orgId },
    awaitReadModels: false,
  });
  if (visible && outcome.position)
    await awaitReadModels(deps.commands, outcome.position).catch(() => undefined);
  return outcome.events.length > 0;
}

export function recordTokensRefreshed(
  deps: TokenHealthDeps,
  account: AccountRef,
  tokenExpiresAt: string | null,
  metadata: CommandMetadata,
): Promise<boolean> {
  return recordTokenHealth(deps, account, metadata, { type: 'RecordTokensRefreshed', tokenExpiresAt });
}

/** Status `error`, once; the event carries what a notification needs (platform, handle, reason). */
export function recordRefreshFailed(
  deps: TokenHealthDeps,
  account: AccountRef,
  reason: string,
  metadata: CommandMetadata,
): Promise<boolean> {
  return recordTokenHealth(deps, account, metadata, { type: 'RecordRefreshFailed', reason }, true);
}

/** For platforms without refresh: one warning per expiry time. */
export function recordTokenExpiring(
  deps: TokenHealthDeps,
  account: AccountRef,
  tokenExpiresAt: string,
  metadata: CommandMetadata,
): Promise<boolean> {
  return recordTokenHealth(deps, account, metadata, { type: 'RecordTokenExpiring', tokenExpiresAt });
}
