import { describe } from 'vitest';
import { InProcessBus } from '../../infra/bus/in-process-bus.js';
import { busContract } from './contract.js';

describe('in-process bus', () => {
  busContract(() => {
    // One instance is the whole deployment: every "process" shares its queues.
    const bus = new InProcessBus({ redeliveryDelay: () => 50 });
    return { open: async () => bus };
  });
});
