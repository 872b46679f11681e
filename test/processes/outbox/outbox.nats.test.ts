import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { afterAll, describe, inject } from 'vitest';
import { NatsBus, type NatsBusOptions } from '../../../infra/bus/nats-bus.js';
import { outboxSuite } from './outbox-suite.js';

const natsUrl = inject('natsUrl');
const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const options: NatsBusOptions = {
  url: natsUrl,
  streamName: `TEST_OUTBOX_${run}`,
  subjectPrefix: `test-outbox-${run}`,
  redeliveryDelay: () => 50,
  pullExpiresMs: 2000,
  connectionName: `outbox-test-${run}`,
};

describe.skipIf(!natsUrl)('outbox over the NATS bus', () => {
  afterAll(async () => {
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await nc.jetstreamManager();
      await jsm.streams.delete(options.streamName!).catch(() => false);
    } finally {
      await nc.close();
    }
  });

  outboxSuite(() => ({ open: () => NatsBus.connect(options) }));
});
