import { connect, RetentionPolicy, StorageType, nanos } from 'nats';
import { afterAll, describe, expect, test } from 'vitest';
import { NatsBus, durableNameFor } from '../../infra/bus/nats-bus.js';
import { natsTestBus } from '../support/nats.js';
import { busContract } from './contract.js';

// Per-run stream and subject prefix: parallel runs against one server never see each other's work.
const { natsUrl, options, deleteStream } = natsTestBus('work', {
  duplicateWindowMs: 60_000,
  connectionName: 'bus-contract',
});

describe.skipIf(!natsUrl)('NATS bus', () => {
  afterAll(deleteStream);

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
