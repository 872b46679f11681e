// A notification's id is derived from its workspace, recipient and dedupeKey, so a rebuild of the read model gives
// every notification the id its read and dismiss events (and its e-mail record) point at.
import { deterministicUuid } from '../shared/ids.js';

export function notificationId(orgId: string, userId: string, dedupeKey: string): string {
  return deterministicUuid('notification', orgId, userId, dedupeKey);
}
