// The local object store keeps its files to the service (0600 files, 0700 folders) and sweeps uploads never
// completed once they are older than their URL's lifetime, leaving every other object alone.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LocalObjectStorage } from '../../infra/object-storage/local-object-storage.js';

let rootDir: string;
let storage: LocalObjectStorage;
beforeEach(async () => {
  rootDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'local-hardening-')), 'objects');
  storage = new LocalObjectStorage({
    rootDir,
    publicBaseUrl: 'http://localhost:3000',
    signingSecret: randomBytes(32),
  });
});
afterEach(async () => rm(path.dirname(rootDir), { recursive: true, force: true }));

describe('local object files', () => {
  test('are readable by the service only: files 0600, folders 0700', async () => {
    await storage.put('orgs/a/media/one.png', new Uint8Array([1, 2, 3]), 'image/png');
    await storage.putStream('orgs/a/media/two.png', Readable.from([Buffer.from('abc')]), 'image/png', 3);
    const modes: number[] = [];
    expect((await stat(rootDir)).mode & 0o777).toBe(0o700);
    for (const folder of await readdir(rootDir)) {
      expect((await stat(path.join(rootDir, folder))).mode & 0o777).toBe(0o700);
      for (const file of await readdir(path.join(rootDir, folder)))
        modes.push((await stat(path.join(rootDir, folder, file))).mode & 0o777);
    }
    // Two objects: a body and a sidecar each.
    expect(modes).toEqual([0o600, 0o600, 0o600, 0o600]);
  });
});

describe('deleteStale', () => {
  test('deletes objects under the prefix written before the cutoff, and nothing else', async () => {
    await storage.put('uploads/media/org/a.png', new Uint8Array([1]), 'image/png');
    await storage.put('uploads/media/org/b.png', new Uint8Array([2]), 'image/png');
    await storage.put('orgs/org/media/a.png', new Uint8Array([3]), 'image/png');
    // Nothing is older than an hour ago.
    expect(await storage.deleteStale('uploads/', Date.now() - 3_600_000)).toBe(0);
    expect(await storage.head('uploads/media/org/a.png')).not.toBeNull();
    // Everything written so far is older than a second from now.
    expect(await storage.deleteStale('uploads/', Date.now() + 1_000)).toBe(2);
    expect(await storage.head('uploads/media/org/a.png')).toBeNull();
    expect(await storage.head('uploads/media/org/b.png')).toBeNull();
    expect(await storage.head('orgs/org/media/a.png')).not.toBeNull();
    // One body file and one sidecar remain: the swept objects left no files behind.
    const files = (
      await Promise.all((await readdir(rootDir)).map((d) => readdir(path.join(rootDir, d))))
    ).flat();
    expect(files).toHaveLength(2);
  });

  test('an empty or missing store sweeps nothing', async () => {
    expect(await storage.deleteStale('uploads/', Date.now() + 1_000)).toBe(0);
  });
});
