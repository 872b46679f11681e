// The token store against a real PostgreSQL: tokens are sealed at rest (the row holds no token), bound to
// workspace and account (other associated data fails), readable across key rotation and re-sealed on read.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { TokenCipher, TokenDecryptionError } from '../../../infra/crypto/token-cipher.js';
import {
  socialAccountTokenMigrations,
  tokenAssociatedData,
  TokenStore,
  type SocialAccountTokensTable,
} from '../../../infra/social-accounts/token-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { tokensOf } from './support.js';

const key1 = { version: 1, key: randomBytes(32) };
const key2 = { version: 2, key: randomBytes(32) };
let database: TestDatabase<{ social_account_tokens: SocialAccountTokensTable }>;

beforeAll(async () => {
  database = await createTestDatabase(socialAccountTokenMigrations);
});
afterAll(async () => database.drop());

const rowOf = async (accountId: string) =>
  database.db
    .selectFrom('social_account_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();

describe('sealed at rest', () => {
  test('the row holds neither token, only the sealed value, key version, expiry and whether a refresh token exists', async () => {
    const store = new TokenStore(database.db, new TokenCipher([key1]));
    const orgId = randomUUID();
    const accountId = randomUUID();
    const expiresAt = new Date('2026-12-01T10:00:00Z');
    await store.save(orgId, accountId, {
      ...tokensOf('secret-access-AAA', expiresAt, 'secret-refresh-BBB'),
      extra: { did: 'did:plc:x' },
    });

    const row = await rowOf(accountId);
    const raw = JSON.stringify(row);
    expect(raw).not.toContain('secret-access-AAA');
    expect(raw).not.toContain('secret-refresh-BBB');
    expect(raw).not.toContain('did:plc:x');
    expect(row).toMatchObject({
      org_id: orgId,
      key_version: 1,
      expires_at: expiresAt.toISOString(),
      has_refresh_token: true,
    });
    expect(row.sealed).toMatch(/^v1\./);

    expect(await store.load(orgId, accountId)).toEqual({
      ...tokensOf('secret-access-AAA', expiresAt, 'secret-refresh-BBB'),
      extra: { did: 'did:plc:x' },
    });
  });

  test('a save replaces the tokens; no refresh token is recorded as such; delete removes the row', async () => {
    const store = new TokenStore(database.db, new TokenCipher([key1]));
    const orgId = randomUUID();
    const accountId = randomUUID();
    await store.save(orgId, accountId, tokensOf('a1', null));
    await store.save(orgId, accountId, tokensOf('a2', null, null));
    expect((await store.load(orgId, accountId))?.accessToken).toBe('a2');
    expect((await rowOf(accountId)).has_refresh_token).toBe(false);
    await store.delete(orgId, accountId);
    expect(await store.load(orgId, accountId)).toBeNull();
  });

  test('the sealed value only opens for its own workspace and account', async () => {
    const cipher = new TokenCipher([key1]);
    const store = new TokenStore(database.db, cipher);
    const orgId = randomUUID();
    const accountId = randomUUID();
    await store.save(orgId, accountId, tokensOf('a1', null));
    const { sealed } = await rowOf(accountId);
    expect(() => cipher.decrypt(sealed, tokenAssociatedData(randomUUID(), accountId))).toThrow(
      TokenDecryptionError,
    );
    expect(() => cipher.decrypt(sealed, tokenAssociatedData(orgId, randomUUID()))).toThrow(
      TokenDecryptionError,
    );
    // Another workspace asking for this account id gets nothing at all.
    expect(await store.load(randomUUID(), accountId)).toBeNull();

    // A sealed value moved onto another account's row does not open there.
    const other = randomUUID();
    await store.save(orgId, other, tokensOf('b1', null));
    await sql`update social_account_tokens set sealed = ${sealed} where account_id = ${other}`.execute(
      database.db,
    );
    await expect(store.load(orgId, other)).rejects.toThrow(TokenDecryptionError);
  });
});

describe('key rotation', () => {
  test('tokens sealed with an old key stay readable after rotation and are re-sealed with the current key', async () => {
    const orgId = randomUUID();
    const accountId = randomUUID();
    await new TokenStore(database.db, new TokenCipher([key1])).save(
      orgId,
      accountId,
      tokensOf('old-key-token', null),
    );
    expect((await rowOf(accountId)).key_version).toBe(1);

    const rotated = new TokenStore(database.db, new TokenCipher([key2, key1]));
    expect((await rotated.load(orgId, accountId))?.accessToken).toBe('old-key-token');
    const row = await rowOf(accountId);
    expect(row.key_version).toBe(2);
    expect(row.sealed).toMatch(/^v2\./);

    // Once re-sealed, the old key is no longer needed.
    const onlyNew = new TokenStore(database.db, new TokenCipher([key2]));
    expect((await onlyNew.load(orgId, accountId))?.accessToken).toBe('old-key-token');
  });

  test('every write seals with the current key', async () => {
    const orgId = randomUUID();
    const accountId = randomUUID();
    await new TokenStore(database.db, new TokenCipher([key1])).save(orgId, accountId, tokensOf('t', null));
    await new TokenStore(database.db, new TokenCipher([key2, key1])).save(
      orgId,
      accountId,
      tokensOf('t2', null),
    );
    expect((await rowOf(accountId)).key_version).toBe(2);
  });

  test('a value sealed with a key that is no longer configured cannot be read', async () => {
    const orgId = randomUUID();
    const accountId = randomUUID();
    await new TokenStore(database.db, new TokenCipher([key1])).save(orgId, accountId, tokensOf('t', null));
    await expect(new TokenStore(database.db, new TokenCipher([key2])).load(orgId, accountId)).rejects.toThrow(
      TokenDecryptionError,
    );
  });
});

describe('expiring tokens and the account lock', () => {
  test('expiringBefore pages through tokens by expiry, without secrets', async () => {
    const store = new TokenStore(database.db, new TokenCipher([key1]));
    const orgId = randomUUID();
    // Earlier than every other row of this file, so the first page is ours.
    const base = Date.parse('2020-01-01T00:00:00Z');
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries())
      await store.save(orgId, id, tokensOf(`t${i}`, new Date(base + i * 1000)));
    await store.save(orgId, randomUUID(), tokensOf('never', null));
    const before = new Date(base + 2500);
    const first = await store.expiringBefore(before, { limit: 2 });
    expect(first.map((r) => r.accountId)).toEqual(ids.slice(0, 2));
    const next = await store.expiringBefore(before, { after: first[1]!, limit: 2 });
    expect(next.map((r) => r.accountId)).toEqual([ids[2]]);
    expect(JSON.stringify(next)).not.toContain('t2');
  });

  test('the lock serialises holders of one account; skipIfLocked gives up at once while it is held', async () => {
    const store = new TokenStore(database.db, new TokenCipher([key1]));
    const otherProcess = new TokenStore(database.db, new TokenCipher([key1]));
    const accountId = randomUUID();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstEntered!: () => void;
    const entered = new Promise<void>((resolve) => (firstEntered = resolve));

    const first = store.withAccountLock(accountId, async () => {
      order.push('first in');
      firstEntered();
      await firstHolds;
      order.push('first out');
    });
    await entered;
    // Another store (as another process would) cannot take it, in-process callers neither.
    expect(await otherProcess.withAccountLock(accountId, async () => 'x', { skipIfLocked: true })).toEqual({
      locked: false,
    });
    expect(await store.withAccountLock(accountId, async () => 'x', { skipIfLocked: true })).toEqual({
      locked: false,
    });
    const second = store.withAccountLock(accountId, async () => {
      order.push('second');
      return 2;
    });
    const third = otherProcess.withAccountLock(accountId, async () => {
      order.push('third');
      return 3;
    });
    releaseFirst();
    await first;
    expect(await second).toEqual({ locked: true, value: 2 });
    expect(await third).toEqual({ locked: true, value: 3 });
    expect(order.slice(0, 2)).toEqual(['first in', 'first out']);
    expect(order.slice(2).sort()).toEqual(['second', 'third']);
    // Released: a try now succeeds.
    expect(await otherProcess.withAccountLock(accountId, async () => 'free', { skipIfLocked: true })).toEqual(
      {
        locked: true,
        value: 'free',
      },
    );
  });
});
