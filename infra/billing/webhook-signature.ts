// The webhook signature Paddle Billing and the sandbox provider share (`ts=…;h1=…`, HMAC-SHA256 of `ts:body`),
// checked here, not by the Paddle SDK (which takes any future timestamp and compares the HMAC with `===`).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How old a signature may be when it arrives (Paddle's SDK allows five seconds; Paddle signs each retry anew). */
export const WEBHOOK_SIGNATURE_MAX_AGE_SECONDS = 5;
/** How far in the future a signature's timestamp may lie (clock skew); a later one is refused like a stale one. */
export const WEBHOOK_SIGNATURE_MAX_FUTURE_SECONDS = 5;

/** `ts=<unix seconds>;h1=<hex HMAC-SHA256 of "ts:body">`, as Paddle signs. */
export function signWebhookBody(rawBody: string, secret: string, at: Date): string {
  const ts = Math.floor(at.getTime() / 1000);
  return `ts=${ts};h1=${hmacHex(rawBody, secret, String(ts))}`;
}

function hmacHex(rawBody: string, secret: string, ts: string): string {
  return createHmac('sha256', secret).update(`${ts}:${rawBody}`).digest('hex');
}

/**
 * True when `header` carries a timestamp within the window around `receivedAt` and an `h1` that is the HMAC of
 * `ts:body` (compared in constant time; any of several `h1`, as during a secret rotation). False for a missing,
 * malformed, wrong, stale or future one.
 */
export function webhookSignatureValid(
  rawBody: string,
  secret: string,
  header: string | undefined,
  receivedAt: Date,
): boolean {
  if (!header || header.length > 1024) return false;
  let ts: string | null = null;
  const h1: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 'ts') ts = value;
    else if (key === 'h1') h1.push(value);
  }
  if (ts === null || !/^\d{1,12}$/.test(ts) || h1.length === 0) return false;
  const ageSeconds = receivedAt.getTime() / 1000 - Number(ts);
  if (ageSeconds > WEBHOOK_SIGNATURE_MAX_AGE_SECONDS || ageSeconds < -WEBHOOK_SIGNATURE_MAX_FUTURE_SECONDS)
    return false;
  const expected = Buffer.from(hmacHex(rawBody, secret, ts), 'utf8');
  let valid = false;
  for (const given of h1) {
    const bytes = Buffer.from(given.toLowerCase(), 'utf8');
    // timingSafeEqual needs equal lengths; a length mismatch is a wrong signature (its length is no secret).
    if (bytes.length === expected.length && timingSafeEqual(bytes, expected)) valid = true;
  }
  return valid;
}
