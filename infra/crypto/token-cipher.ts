// Encryption at rest for social account tokens: AES-256-GCM with associated data binding each secret to its
// workspace and account, and a key version so keys can be rotated (old versions stay readable).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface TokenKey {
  version: number;
  /** 32 bytes. */
  key: Buffer;
}

export class TokenDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenDecryptionError';
  }
}

/** Bytes of the GCM authentication tag: written in full and required in full (no truncated tags). */
const TAG_BYTES = 16;

/** `v<version>.<iv>.<tag>.<ciphertext>`, base64url parts. */
export class TokenCipher {
  private readonly current: TokenKey;
  private readonly byVersion: Map<number, Buffer>;

  /** The first key encrypts; every key decrypts what was written with its version. */
  constructor(keys: readonly TokenKey[]) {
    const first = keys[0];
    if (!first) throw new Error('TokenCipher needs at least one key');
    const seen = new Set<number>();
    for (const k of keys) {
      if (k.key.length !== 32) throw new Error(`Token key v${k.version} must be 32 bytes`);
      if (!Number.isInteger(k.version) || k.version < 1)
        throw new Error('Token key versions are integers ≥ 1');
      // A version names one key: a second one would silently replace the first for decryption.
      if (seen.has(k.version)) throw new Error(`Token key v${k.version} is given more than once`);
      seen.add(k.version);
    }
    this.current = first;
    this.byVersion = new Map(keys.map((k) => [k.version, k.key]));
  }

  get currentVersion(): number {
    return this.current.version;
  }

  /** `associatedData` names what the secret belongs to, e.g. `socialAccount:<orgId>:<accountId>`. */
  encrypt(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [`v${this.current.version}`, iv, tag, ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(sealed: string, associatedData: string): string {
    const [v, iv, tag, ciphertext] = sealed.split('.');
    const version = Number(v?.slice(1));
    const key = this.byVersion.get(version);
    if (!v?.startsWith('v') || !key || iv === undefined || tag === undefined || ciphertext === undefined)
      throw new TokenDecryptionError(`No key for token version "${v ?? ''}"`);
    const authTag = Buffer.from(tag, 'base64url');
    // GCM verifies any prefix of the tag: a 4-byte tag would leave 1 in 2^32 forgeries to chance.
    if (authTag.length !== TAG_BYTES)
      throw new TokenDecryptionError('Token could not be decrypted (wrong key or tampered)');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(authTag);
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new TokenDecryptionError('Token could not be decrypted (wrong key or tampered)');
    }
  }

  /** Whether a sealed value was written with an older key (re-encrypt it on the next write). */
  needsRotation(sealed: string): boolean {
    return !sealed.startsWith(`v${this.current.version}.`);
  }
}
