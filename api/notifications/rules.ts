// The notifications slice's extension point: each slice that has events worth telling people about contributes
// its rules (domain/<slice>/notification-rules.ts) with `contribute(notificationRules, rules)` on its slice; the
// notifications read model is built from every slice's (api/notifications/slice.ts).
import type { NotificationRules } from '../../domain/notifications/rules.js';
import { extensionPoint } from '../shared/service.js';

export const notificationRules = extensionPoint<NotificationRules>('notification rules');
