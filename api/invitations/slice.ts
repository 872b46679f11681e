// The invitations slice: inviting people to a workspace by e-mail, and accepting (issue 13).
import type { Mailer } from '../../infra/mail/port.js';
import { invitationsProjection } from '../../projections/invitations/invitations-projection.js';
import { provide } from '../shared/provider.js';
import { service } from '../shared/service.js';
import { defineSlice } from '../shared/slice.js';
import { browserSessions } from '../sign-in/sessions.js';
import { mailerService } from '../sign-in/slice.js';
import { acceptPageRoutes } from './accept-page.js';
import { invitationOperations, type InvitationsDeps } from './operations.js';

export interface InvitationsSliceOptions {
  /** The clock invitations are created, listed and accepted by; tests move it past an expiry. */
  now?: () => Date;
  /** Wraps the runtime's mailer (tests make it fail). */
  mailer?: (mailer: Mailer) => Mailer;
}

/** What the invitations slice's operations and page use, provided once per runtime. */
export const invitationsDeps = service<InvitationsDeps>()('invitations');

export function createInvitationsSlice(options: InvitationsSliceOptions = {}) {
  return defineSlice({
    name: 'invitations',
    requires: [mailerService, browserSessions],
    provides: [
      provide(invitationsDeps, {
        requires: [mailerService],
        build: (ctx) => {
          const mailer = ctx.use(mailerService);
          return {
            ...ctx.services,
            now: options.now ?? ctx.services.now ?? (() => new Date()),
            mailer: options.mailer ? options.mailer(mailer) : mailer,
            publicBaseUrl: ctx.publicBaseUrl,
            logger: ctx.logger,
          };
        },
      }),
    ],
    projections: [invitationsProjection],
    operations: [invitationOperations((ctx) => ctx.use(invitationsDeps))],
    // The page the invitation mail links to: HTML for a browser with a sign-in session, not an operation.
    routes: (ctx) => [acceptPageRoutes({ ...ctx.use(invitationsDeps), sessions: ctx.use(browserSessions) })],
  });
}

export const invitationsSlice = createInvitationsSlice();
