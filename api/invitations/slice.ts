// The invitations slice: inviting people to a workspace by e-mail, and accepting (issue 13).
import type { Mailer } from '../../infra/mail/port.js';
import { invitationsProjection } from '../../projections/invitations/invitations-projection.js';
import type { Slice } from '../shared/slice.js';
import { browserSessionsOf } from '../sign-in/sessions.js';
import { mailerOf } from '../sign-in/slice.js';
import { acceptPageRoutes } from './accept-page.js';
import { invitationRoutes } from './routes.js';

export interface InvitationsSliceOptions {
  /** The clock invitations are created, listed and accepted by; tests move it past an expiry. */
  now?: () => Date;
  /** Wraps the runtime's mailer (tests make it fail). */
  mailer?: (mailer: Mailer) => Mailer;
}

export function createInvitationsSlice(options: InvitationsSliceOptions = {}): Slice {
  return {
    name: 'invitations',
    projections: [invitationsProjection],
    routes: (ctx) => {
      const now = options.now ?? ctx.services.now ?? (() => new Date());
      const deps = {
        ...ctx.services,
        now,
        mailer: options.mailer ? options.mailer(mailerOf(ctx)) : mailerOf(ctx),
        publicBaseUrl: ctx.publicBaseUrl,
        logger: ctx.logger,
      };
      return [invitationRoutes(deps), acceptPageRoutes({ ...deps, sessions: browserSessionsOf(ctx) })];
    },
  };
}

export const invitationsSlice: Slice = createInvitationsSlice();
