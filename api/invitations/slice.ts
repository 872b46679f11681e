// The invitations slice: inviting people to a workspace by e-mail, and accepting (issue 13).
import type { Mailer } from '../../infra/mail/port.js';
import { invitationsProjection } from '../../projections/invitations/invitations-projection.js';
import type { Slice, SliceContext } from '../shared/slice.js';
import { browserSessionsOf } from '../sign-in/sessions.js';
import { mailerOf } from '../sign-in/slice.js';
import { acceptPageRoutes } from './accept-page.js';
import { invitationOperations, type InvitationsDeps } from './operations.js';

export interface InvitationsSliceOptions {
  /** The clock invitations are created, listed and accepted by; tests move it past an expiry. */
  now?: () => Date;
  /** Wraps the runtime's mailer (tests make it fail). */
  mailer?: (mailer: Mailer) => Mailer;
}

export function createInvitationsSlice(options: InvitationsSliceOptions = {}): Slice {
  const built = new WeakMap<SliceContext, InvitationsDeps>();
  const depsOf = (ctx: SliceContext): InvitationsDeps => {
    let deps = built.get(ctx);
    if (!deps) {
      const now = options.now ?? ctx.services.now ?? (() => new Date());
      deps = {
        ...ctx.services,
        now,
        mailer: options.mailer ? options.mailer(mailerOf(ctx)) : mailerOf(ctx),
        publicBaseUrl: ctx.publicBaseUrl,
        logger: ctx.logger,
      };
      built.set(ctx, deps);
    }
    return deps;
  };
  return {
    name: 'invitations',
    projections: [invitationsProjection],
    operations: [invitationOperations(depsOf)],
    // The page the invitation mail links to: HTML for a browser with a sign-in session, not an operation.
    routes: (ctx) => [acceptPageRoutes({ ...depsOf(ctx), sessions: browserSessionsOf(ctx) })],
  };
}

export const invitationsSlice: Slice = createInvitationsSlice();
