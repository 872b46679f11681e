// The received-webhooks table: one accepted row per (provider, event id) as the dedupe key; a failed delivery
// becomes applied when its redelivery applies, an applied one is never taken twice; duplicates and refusals are
// rows of their own.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookStore } from '../../../infra/billing/webhook-store.js';
import { startTestService, type TestService } from '../../support/runtime.js';

let service: TestService;
let store: WebhookStore;

beforeAll(async () => {
  service = await startTestService({ background: false });
  store = new WebhookStore(service.runtime.database.db);
});

afterAll(async () => {
  await service.stop();
});

const delivery = (eventId: string) => ({
  provider: 'paddle',
  eventId,
  eventType: 'subscription.updated',
  receivedAt: new Date(),
  signatureOk: true,
});

describe('WebhookStore', () => {
  it('takes an event once: failed, then applied by the redelivery, then a duplicate', async () => {
    const eventId = `evt_${randomUUID()}`;
    expect(await store.wasApplied('paddle', eventId)).toBe(false);
    expect(await store.recordAccepted({ ...delivery(eventId), outcome: 'failed', error: 'boom' })).toBe(true);
    expect(await store.wasApplied('paddle', eventId)).toBe(false);
    expect(await store.recordAccepted({ ...delivery(eventId), outcome: 'applied', noticeCount: 1 })).toBe(
      true,
    );
    expect(await store.wasApplied('paddle', eventId)).toBe(true);
    // Another delivery that applied concurrently does not take it again.
    expect(await store.recordAccepted({ ...delivery(eventId), outcome: 'applied', noticeCount: 1 })).toBe(
      false,
    );
    await store.recordOther({ ...delivery(eventId), outcome: 'duplicate' });
    const rows = await store.deliveriesOf('paddle', eventId);
    expect(rows.map((r) => [r.outcome, r.error, r.notice_count])).toEqual([
      ['applied', null, 1],
      ['duplicate', null, 0],
    ]);
  });

  it('keeps the same event id apart per provider, and refused deliveries beside accepted ones', async () => {
    const eventId = `evt_${randomUUID()}`;
    expect(await store.recordAccepted({ ...delivery(eventId), outcome: 'applied' })).toBe(true);
    expect(
      await store.recordAccepted({ ...delivery(eventId), provider: 'sandbox', outcome: 'applied' }),
    ).toBe(true);
    await store.recordOther({
      ...delivery(eventId),
      signatureOk: false,
      outcome: 'refused',
      error: 'bad signature',
    });
    await store.recordOther({
      ...delivery(eventId),
      signatureOk: false,
      outcome: 'refused',
      error: 'bad signature',
    });
    expect((await store.deliveriesOf('paddle', eventId)).map((r) => [r.outcome, r.signature_ok])).toEqual([
      ['applied', true],
      ['refused', false],
      ['refused', false],
    ]);
    expect((await store.deliveriesOf('sandbox', eventId)).map((r) => r.outcome)).toEqual(['applied']);
  });

  it('records refusals up to a limit per provider and minute (the route takes requests without a token)', async () => {
    const provider = `flood-${randomUUID().slice(0, 8)}`;
    const refused = (n: number) => ({
      provider,
      eventId: `evt_${n}`,
      eventType: null,
      receivedAt: new Date(),
      signatureOk: false,
      outcome: 'refused' as const,
      error: 'bad signature',
    });
    const recorded = [];
    for (let n = 0; n < 5; n++) recorded.push(await store.recordRefused(refused(n), 3));
    expect(recorded).toEqual([true, true, true, false, false]);
    const rows = await service.runtime.database.pool.query<{ n: string }>(
      'select count(*) as n from billing_webhooks where provider = $1',
      [provider],
    );
    expect(Number(rows.rows[0]!.n)).toBe(3);
    // Another provider's refusals are counted apart.
    expect(await store.recordRefused({ ...refused(9), provider: `${provider}-b` }, 3)).toBe(true);
  });
});
