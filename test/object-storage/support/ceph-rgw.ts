// Starts a throwaway single-node Ceph cluster (one monitor, one in-memory OSD) with the RADOS Gateway,
// a real S3 implementation that verifies SigV4 presigned URLs, from Debian's radosgw/ceph-mon/ceph-osd.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const REQUIRED_BINARIES = ['monmaptool', 'ceph-mon', 'ceph-osd', 'ceph', 'radosgw', 'radosgw-admin'];

export interface RunningRgw {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, binary), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The binaries missing for `startCephRgw`; empty when it can run here (`apt-get install radosgw ceph-mon ceph-osd`). */
export function missingCephBinaries(): string[] {
  return REQUIRED_BINARIES.filter((binary) => !onPath(binary));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function retry<T>(what: string, deadlineMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await attempt();
      if (result !== undefined) return result;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`Ceph test cluster: ${what} did not happen in ${deadlineMs} ms`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startCephRgw(): Promise<RunningRgw> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ceph-rgw-test-'));
  const children: ChildProcess[] = [];
  const conf = path.join(dir, 'ceph.conf');
  const ceph = (...args: string[]) => run('ceph', ['-c', conf, '--connect-timeout', '10', ...args]);

  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };

  const daemon = (command: string, args: string[]) => {
    const child = spawn(command, ['-f', '-c', conf, ...args], { stdio: 'ignore' });
    children.push(child);
    return child;
  };

  try {
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const fsid = randomUUID();
    await mkdir(path.join(dir, 'run'));
    await mkdir(path.join(dir, 'log'));
    // Authentication between the daemons is off (loopback only, deleted afterwards); the S3 layer keeps
    // its own SigV4 checks, which are what the contract tests exercise.
    await writeFile(
      conf,
      [
        '[global]',
        `fsid = ${fsid}`,
        `mon host = v2:127.0.0.1:${monPort}`,
        'auth cluster required = none',
        'auth service required = none',
        'auth client required = none',
        'ms mon client mode = crc secure',
        'ms bind ipv6 = false',
        'osd pool default size = 1',
        'osd pool default min size = 1',
        'osd pool default pg num = 8',
        'osd pool default pgp num = 8',
        'osd pool default pg autoscale mode = off',
        'mon allow pool size one = true',
        'mon warn on pool no redundancy = false',
        'mon max pg per osd = 1000',
        'osd crush chooseleaf type = 0',
        'osd objectstore = memstore',
        'memstore device bytes = 536870912',
        `run dir = ${dir}/run`,
        `admin socket = ${dir}/run/$name.asok`,
        `log file = ${dir}/log/$name.log`,
        `pid file = ${dir}/run/$name.pid`,
        `mon data = ${dir}/mon`,
        `osd data = ${dir}/osd$id`,
        '',
      ].join('\n'),
    );

    await run('monmaptool', [
      '--create',
      '--fsid',
      fsid,
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      `${dir}/monmap`,
    ]);
    await run('ceph-mon', [
      '--mkfs',
      '-i',
      'a',
      '--monmap',
      `${dir}/monmap`,
      '-c',
      conf,
      '--keyring',
      '/dev/null',
    ]);
    daemon('ceph-mon', ['-i', 'a']);
    await retry('monitor quorum', 30_000, async () => (await ceph('mon', 'stat')).stdout || undefined);

    const osdUuid = randomUUID();
    const osdId = (await ceph('osd', 'new', osdUuid)).stdout.trim();
    await mkdir(path.join(dir, `osd${osdId}`));
    await run('ceph-osd', ['-i', osdId, '--mkfs', '--osd-uuid', osdUuid, '-c', conf]);
    daemon('ceph-osd', ['-i', osdId]);
    await retry('OSD up', 60_000, async () => {
      const stat = JSON.parse((await ceph('osd', 'stat', '-f', 'json')).stdout) as { num_up_osds?: number };
      return (stat.num_up_osds ?? 0) >= 1 ? true : undefined;
    });

    const endpoint = `http://127.0.0.1:${rgwPort}`;
    daemon('radosgw', ['-n', 'client.rgw', '--rgw-frontends', `beast endpoint=127.0.0.1:${rgwPort}`]);
    await retry('RADOS Gateway answering', 60_000, async () =>
      (await fetch(endpoint)).ok ? true : undefined,
    );

    const accessKeyId = `TEST${randomBytes(8).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await run('radosgw-admin', [
      '-c',
      conf,
      'user',
      'create',
      '--uid',
      'contract-tests',
      '--display-name',
      'contract tests',
      '--access-key',
      accessKeyId,
      '--secret',
      secretAccessKey,
    ]);
    return { endpoint, region: 'us-east-1', accessKeyId, secretAccessKey, stop };
  } catch (error) {
    const logs = await readFile(path.join(dir, 'log', 'client.rgw.log'), 'utf8').catch(() => '');
    await stop();
    if (logs && error instanceof Error)
      error.message += `\n--- client.rgw.log (tail) ---\n${logs.slice(-2000)}`;
    throw error;
  }
}
