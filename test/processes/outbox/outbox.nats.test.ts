import { afterAll, describe } from 'vitest';
import { NatsBus } from '../../../infra/bus/nats-bus.js';
import { natsTestBus } from '../../support/nats.js';
import { outboxSuite } from './outbox-suite.js';

const { natsUrl, options, deleteStream } = natsTestBus('outbox');

describe.skipIf(!natsUrl)('outbox over the NATS bus', () => {
  afterAll(deleteStream);

  outboxSuite(() => ({ open: () => NatsBus.connect(options) }));
});
