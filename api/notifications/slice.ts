// The notifications slice: in-app notifications derived from events, preferences and notification e-mail (issue 13).
// The notifications read model decides who is told (projections/notifications), each member's inbox stream records
// what they read, dismiss and prefer, and the notification mailer sends e-mails at once or in a daily digest.
import { createNotificationsProjection } from '../../projections/notifications/notifications-projection.js';
import { effectiveTimezoneOf } from '../../projections/scheduling/queries.js';
import { notificationMailMigrations } from '../../processes/notifications/migrations.js';
import { NotificationMailer } from '../../processes/notifications/notification-mailer.js';
import { mailerService } from '../sign-in/slice.js';
import { migrationsOf, defineSlice } from '../shared/slice.js';
import { notificationOperations } from './operations.js';
import { notificationRules } from './rules.js';

/** The worker whose running instance is the NotificationMailer. */
export const NOTIFICATION_MAILER_WORKER = 'notification-mailer';

export const notificationsSlice = defineSlice({
  name: 'notifications',
  // Notification e-mail goes through the runtime's one mailer.
  requires: [mailerService],
  migrations: migrationsOf(notificationMailMigrations),
  // Built from the rules the slices contribute (domain/<slice>/notification-rules.ts): no central table.
  projections: (contributions) => [createNotificationsProjection(contributions(notificationRules))],
  operations: [notificationOperations],
  workers: [
    {
      name: NOTIFICATION_MAILER_WORKER,
      async start(ctx) {
        const mailer = new NotificationMailer({
          db: ctx.readModels,
          mailer: ctx.use(mailerService),
          logger: ctx.logger,
          owner: ctx.owner,
          publicBaseUrl: ctx.publicBaseUrl,
          timezoneOf: (orgId) => effectiveTimezoneOf(ctx.readModels, orgId),
          commits: ctx.projectionCommits,
        });
        await mailer.start();
        return mailer;
      },
    },
  ],
});
