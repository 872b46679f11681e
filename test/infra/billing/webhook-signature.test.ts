// Finding 17: the webhook signature (Paddle's and the sandbox's `ts=…;h1=…`) is refused when its timestamp lies
// in the future beyond a small skew as well as when stale, and the HMAC is compared in constant time
// (crypto.timingSafeEqual on equal-length buffers), for the Paddle adapter and the sandbox's check alike.
import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { PaddlePaymentProvider } from '../../../infra/billing/paddle-provider.js';
import { WebhookSignatureError } from '../../../infra/billing/provider.js';
import {
  WEBHOOK_SIGNATURE_MAX_AGE_SECONDS,
  WEBHOOK_SIGNATURE_MAX_FUTURE_SECONDS,
  webhookSignatureValid,
} from '../../../infra/billing/webhook-signature.js';
import { secret, subscription } from './paddle-fixtures.js';

const compared = vi.hoisted(() => [] as Array<[number, number]>);
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([a.byteLength, b.byteLength]);
      return actual.timingSafeEqual(a, b);
    },
  };
});

beforeEach(() => {
  compared.length = 0;
});

function sign(body: string, at: Date, key = secret): string {
  const ts = Math.floor(at.getTime() / 1000);
  return `ts=${ts};h1=${crypto.createHmac('sha256', key).update(`${ts}:${body}`).digest('hex')}`;
}

const body = JSON.stringify({
  event_id: 'evt_01hv9c0000000000000000000f',
  event_type: 'subscription.updated',
  occurred_at: '2026-12-01T09:00:07.000412Z',
  notification_id: 'ntf_01hv9c0000000000000000000g',
  data: subscription(),
});

const paddle = () =>
  new PaddlePaymentProvider({
    apiKey: 'pdl_sdbx_apikey_test',
    webhookSecret: secret,
    environment: 'sandbox',
    apiUrl: 'http://127.0.0.1:9',
  });

const received = new Date('2026-12-01T09:00:10.000Z');
const seconds = (n: number) => new Date(received.getTime() + n * 1000);
const delivery = (signature: string) => ({
  rawBody: body,
  headers: { 'paddle-signature': signature },
  receivedAt: received,
});

describe('webhook signature timestamps', () => {
  it('refuses a Paddle signature dated in the future beyond the skew, and takes one within it', async () => {
    await expect(paddle().readWebhook(delivery(sign(body, seconds(10 * 60))))).rejects.toThrow(
      WebhookSignatureError,
    );
    await expect(
      paddle().readWebhook(delivery(sign(body, seconds(WEBHOOK_SIGNATURE_MAX_FUTURE_SECONDS + 1)))),
    ).rejects.toThrow(WebhookSignatureError);
    const read = await paddle().readWebhook(delivery(sign(body, seconds(2))));
    expect(read.eventId).toBe('evt_01hv9c0000000000000000000f');
  });

  it('refuses a stale one, judged by when the delivery arrived', async () => {
    await expect(
      paddle().readWebhook(delivery(sign(body, seconds(-WEBHOOK_SIGNATURE_MAX_AGE_SECONDS - 1)))),
    ).rejects.toThrow(WebhookSignatureError);
    expect(webhookSignatureValid(body, secret, sign(body, seconds(-1)), received)).toBe(true);
  });

  it('refuses malformed headers without throwing', () => {
    for (const header of ['', 'garbage', 'ts=;h1=', `ts=abc;h1=${'0'.repeat(64)}`, 'h1=00', `ts=1`])
      expect(webhookSignatureValid(body, secret, header, received)).toBe(false);
  });
});

describe('webhook HMAC comparison', () => {
  it('compares the HMAC with timingSafeEqual on buffers of equal length', async () => {
    await paddle().readWebhook(delivery(sign(body, received)));
    expect(compared.length).toBeGreaterThan(0);
    for (const [a, b] of compared) expect(a).toBe(b);
  });

  it('a signature of another length is wrong, not an exception, and is never compared', async () => {
    const good = sign(body, received);
    await expect(paddle().readWebhook(delivery(`${good}00`))).rejects.toThrow(WebhookSignatureError);
    await expect(paddle().readWebhook(delivery(good.slice(0, -2)))).rejects.toThrow(WebhookSignatureError);
    expect(compared).toEqual([]);
    const other = sign(body, received, 'another-secret');
    await expect(paddle().readWebhook(delivery(other))).rejects.toThrow(WebhookSignatureError);
    expect(compared).toEqual([[64, 64]]);
  });
});
