import { describe } from 'vitest';
import { InProcessBus } from '../../../infra/bus/in-process-bus.js';
import { outboxSuite } from './outbox-suite.js';

describe('outbox over the in-process bus', () => {
  outboxSuite(() => {
    const bus = new InProcessBus({ redeliveryDelay: () => 50 });
    return { open: async () => bus };
  });
});
