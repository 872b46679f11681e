// Event metadata for tests that append to a store directly (no command path in between).
import type { EventMetadata } from '../../infra/event-store/port.js';

export function testMetadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
  return {
    orgId: null,
    actor: 'system',
    correlationId: 'test',
    causationId: null,
    occurredAt: '2026-01-01T00:00:00.000Z',
    schemaVersion: 1,
    ...overrides,
  };
}
