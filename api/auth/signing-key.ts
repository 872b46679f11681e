// The service's ES256 signing key: from AUTH_SIGNING_KEY (private JWK or PKCS8 PEM), or generated once and
// kept at `${DATA_DIR}/keys/signing-key.json` (0600) so the CLI and the server on one machine share it.
import { mkdir, readFile, link, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  importPKCS8,
  type CryptoKey,
  type JWK,
} from 'jose';
import { ConfigError } from '../../infra/config/env.js';

export const signingAlgorithm = 'ES256';

export interface SigningKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Public half as published in the JWKS (kid, alg, use set). */
  publicJwk: JWK;
  kid: string;
}

export interface SigningKeyOptions {
  /** AUTH_SIGNING_KEY: a private EC P-256 JWK as JSON, or a PKCS8 PEM. */
  signingKey?: string;
  dataDir: string;
}

export function signingKeyPath(dataDir: string): string {
  return join(dataDir, 'keys', 'signing-key.json');
}

export async function loadSigningKey(options: SigningKeyOptions): Promise<SigningKey> {
  if (options.signingKey !== undefined) return fromConfiguredKey(options.signingKey);
  return fromKeyFile(signingKeyPath(options.dataDir));
}

async function fromConfiguredKey(text: string): Promise<SigningKey> {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('{')) return await fromPrivateJwk(JSON.parse(trimmed) as JWK);
    if (trimmed.includes('-----BEGIN PRIVATE KEY-----')) {
      const key = await importPKCS8(trimmed, signingAlgorithm, { extractable: true });
      return await fromPrivateJwk(await exportJWK(key));
    }
  } catch (error) {
    throw new ConfigError([`AUTH_SIGNING_KEY: not a usable ES256 private key (${(error as Error).message})`]);
  }
  throw new ConfigError(['AUTH_SIGNING_KEY: must be a private EC P-256 JWK (JSON) or a PKCS8 PEM']);
}

async function fromPrivateJwk(jwk: JWK): Promise<SigningKey> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string') {
    throw new Error('expected an EC P-256 private key');
  }
  const { d: _d, ...publicParts } = jwk;
  const base: JWK = { kty: 'EC', crv: 'P-256', x: publicParts.x, y: publicParts.y };
  const kid = await calculateJwkThumbprint(base);
  const privateKey = (await importJWK({ ...jwk, alg: signingAlgorithm }, signingAlgorithm)) as CryptoKey;
  const publicKey = (await importJWK({ ...base, alg: signingAlgorithm }, signingAlgorithm)) as CryptoKey;
  return { privateKey, publicKey, publicJwk: { ...base, kid, alg: signingAlgorithm, use: 'sig' }, kid };
}

async function fromKeyFile(path: string): Promise<SigningKey> {
  const existing = await readKeyFile(path);
  if (existing) return fromPrivateJwk(existing);

  const { privateKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const jwk = await exportJWK(privateKey);
  // Only the key's folder is private (a recursive mkdir would make DATA_DIR private too, and the embedded
  // PostgreSQL, run as its own user when started as root, could not reach its data below it).
  await mkdir(join(path, '..', '..'), { recursive: true });
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  // Write aside, then link into place: link fails if another process won the race, and nobody ever
  // reads a half-written key. The loser uses the winner's key, so every process signs with one key.
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  const stored = await readKeyFile(path);
  if (!stored) throw new Error(`signing key at ${path} vanished while being created`);
  return fromPrivateJwk(stored);
}

async function readKeyFile(path: string): Promise<JWK | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as JWK;
  } catch {
    throw new ConfigError([`signing key file ${path} is not valid JSON; remove it to generate a new key`]);
  }
}
