// AES-256-GCM token sealing: only full 16-byte authentication tags are accepted, and a key version names one
// key (in the cipher and in the rotation settings alike).
import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { TokenCipher, TokenDecryptionError } from '../../infra/crypto/token-cipher.js';
import { ConfigError } from '../../infra/config/env.js';
import { loadEnv } from '../../api/env.js';

const key1 = { version: 1, key: randomBytes(32) };
const key2 = { version: 2, key: randomBytes(32) };
const aad = 'socialAccount:org:account';

function withTag(sealed: string, tag: (original: Buffer) => Buffer): string {
  const [v, iv, original, ciphertext] = sealed.split('.');
  return [v, iv, tag(Buffer.from(original!, 'base64url')).toString('base64url'), ciphertext].join('.');
}

describe('TokenCipher', () => {
  test('round trip, and the tag is 16 bytes', () => {
    const cipher = new TokenCipher([key1]);
    const sealed = cipher.encrypt('access-token', aad);
    expect(Buffer.from(sealed.split('.')[2]!, 'base64url')).toHaveLength(16);
    expect(cipher.decrypt(sealed, aad)).toBe('access-token');
  });

  test.each([4, 8, 12, 15])('a tag truncated to %i bytes is refused', (length) => {
    const cipher = new TokenCipher([key1]);
    // A prefix of the genuine tag: GCM would accept it if short tags were allowed.
    const truncated = withTag(cipher.encrypt('access-token', aad), (tag) => tag.subarray(0, length));
    expect(() => cipher.decrypt(truncated, aad)).toThrow(TokenDecryptionError);
  });

  test('a tag longer than 16 bytes is refused', () => {
    const cipher = new TokenCipher([key1]);
    const longer = withTag(cipher.encrypt('access-token', aad), (tag) =>
      Buffer.concat([tag, Buffer.from([0])]),
    );
    expect(() => cipher.decrypt(longer, aad)).toThrow(TokenDecryptionError);
  });

  test('two keys with one version are refused', () => {
    expect(() => new TokenCipher([key2, { version: 2, key: randomBytes(32) }])).toThrow(/v2.*more than once/);
    expect(() => new TokenCipher([key2, key1, { version: 1, key: randomBytes(32) }])).toThrow(/v1/);
    // Distinct versions rotate as before: the first encrypts, the others still decrypt.
    const sealedWith1 = new TokenCipher([key1]).encrypt('old', aad);
    expect(new TokenCipher([key2, key1]).decrypt(sealedWith1, aad)).toBe('old');
  });
});

describe('rotation settings', () => {
  const k = () => randomBytes(32).toString('base64');

  function configError(source: Record<string, string>): ConfigError {
    try {
      loadEnv(source);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error('expected a configuration error');
  }

  test('an old key with the current version stops the start', () => {
    const error = configError({
      TOKEN_ENCRYPTION_KEY: k(),
      TOKEN_ENCRYPTION_KEY_VERSION: '2',
      TOKEN_ENCRYPTION_OLD_KEYS: `1:${k()},2:${k()}`,
    });
    expect(error.message).toMatch(/TOKEN_ENCRYPTION_OLD_KEYS: .*version 2.*TOKEN_ENCRYPTION_KEY_VERSION/);
  });

  test('the current version defaults to 1, also without TOKEN_ENCRYPTION_KEY (generated key)', () => {
    expect(configError({ TOKEN_ENCRYPTION_OLD_KEYS: `1:${k()}` }).message).toMatch(
      /TOKEN_ENCRYPTION_OLD_KEYS: .*version 1/,
    );
  });

  test('one version twice among the old keys stops the start', () => {
    const error = configError({
      TOKEN_ENCRYPTION_KEY: k(),
      TOKEN_ENCRYPTION_KEY_VERSION: '3',
      TOKEN_ENCRYPTION_OLD_KEYS: `1:${k()},2:${k()},1:${k()}`,
    });
    expect(error.message).toMatch(/TOKEN_ENCRYPTION_OLD_KEYS: .*version 1 more than once/);
  });

  test('version 0 is refused; distinct versions are accepted', () => {
    expect(configError({ TOKEN_ENCRYPTION_OLD_KEYS: `0:${k()}` }).message).toMatch(
      /TOKEN_ENCRYPTION_OLD_KEYS/,
    );
    const env = loadEnv({
      TOKEN_ENCRYPTION_KEY: k(),
      TOKEN_ENCRYPTION_KEY_VERSION: '3',
      TOKEN_ENCRYPTION_OLD_KEYS: `1:${k()},2:${k()}`,
    });
    expect(env.TOKEN_ENCRYPTION_KEY_VERSION).toBe(3);
  });
});
