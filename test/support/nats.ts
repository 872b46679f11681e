// NATS bus options for one test file: a per-run stream and subject prefix so parallel runs against one server
// never see each other's work, and the clean-up that deletes that stream afterwards.
import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { inject } from 'vitest';
import type { NatsBusOptions } from '../../infra/bus/nats-bus.js';

export function natsTestBus(
  name: string,
  overrides: Partial<NatsBusOptions> = {},
): { natsUrl: string; options: NatsBusOptions; deleteStream: () => Promise<void> } {
  const natsUrl = inject('natsUrl');
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const options: NatsBusOptions = {
    url: natsUrl,
    streamName: `TEST_${name.toUpperCase()}_${run}`,
    subjectPrefix: `test-${name}-${run}`,
    redeliveryDelay: () => 50,
    pullExpiresMs: 2000,
    connectionName: `${name}-test-${run}`,
    ...overrides,
  };
  return {
    natsUrl,
    options,
    deleteStream: async () => {
      const nc = await connect({ servers: natsUrl });
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.delete(options.streamName!).catch(() => false);
      } finally {
        await nc.close();
      }
    },
  };
}
