// Notification ids are derived, never drawn: a cause's id from its workspace and dedupeKey, a member's notification
// id from the cause and the member, so a rebuild of the read model gives every notification the id its read and
// dismiss events (and its e-mail record) point at.
import { createHash } from 'node:crypto';
import { deterministicUuid } from '../shared/ids.js';

export function causeIdOf(orgId: string, dedupeKey: string): string {
  return deterministicUuid('notification-cause', orgId, dedupeKey);
}

/** As the read model computes it in SQL: md5 of `<causeId>:<userId>` with the version-8 UUID bits set. */
export function notificationIdOf(causeId: string, userId: string): string {
  const hex = createHash('md5').update(`${causeId}:${userId}`).digest('hex').split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
