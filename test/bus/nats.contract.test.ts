import { randomBytes } from 'node:crypto';
import { connect, RetentionPolicy, StorageType, nanos } from 'nats';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { NatsBus, durableNameFor, type NatsBusOptions } from '../../infra/bus/nats-bus.js';
import { busContract } from './contract.js';

const natsUrl = inject('natsUrl');
// Per-run stream and subject prefix: parallel runs against one server never see each other's work.
const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const options: NatsBusOptions = {
  url: natsUrl,
  streamName: `TEST_WORK_${run}`,
  subjectPrefix: `test-work-${run}`,
  duplicateWindowMs: 60_000,
  redeliveryDelay: () => 50,
  pullExpiresMs: 2000,
  connectionName: `bus-contract-${run}`,
};

describe.skipIf(!natsUrl)('NATS bus', () => {
  afterAll(async () => {
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(options.streamName!).catch(() => false);
    } finally {
      await nc.close();
    }
  });

  busContract(() => ({ open: () => NatsBus.connect(options) }));

  test('connect creates the work stream once and reconciles a changed duplicate window', async () => {
    const streamName = `${options.streamName}_CFG`;
    const configured = { ...options, streamName, subjectPrefix: `${options.subjectPrefix}-cfg` };
    const nc = await connect({ servers: natsUrl });
    const jsm = await nc.jetstreamManager();
    try {
      const buses = await Promise.all([NatsBus.connect(configured), NatsBus.connect(configured)]);
      await Promise.all(buses.map((b) => b.close()));
      const created = await jsm.streams.info(streamName);
      expect(created.config).toMatchObject({
        subjects: [`${configured.subjectPrefix}.>`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        duplicate_window: nanos(60_000),
      });

      const changed = await NatsBus.connect({ ...configured, duplicateWindowMs: 30_000 });
      await changed.close();
      expect((await jsm.streams.info(streamName)).config.duplicate_window).toBe(nanos(30_000));
    } finally {
      await jsm.streams.delete(streamName).catch(() => false);
      await nc.close();
    }
  });

  test('queue names map to distinct durable consumer names', () => {
    expect(durableNameFor('a.b')).not.toBe(durableNameFor('a_b'));
    expect(durableNameFor('publishing.due')).toMatch(/^publishing_due-[0-9a-f]{8}$/);
  });
});
