// Users of an external identity provider exist here from their first request on: registered by their
// e-mail claim under the id derived from the provider's subject. Users of our own tokens always exist.
// Registering claims the address (grants by e-mail go to its holder), so only an address the provider
// verified counts: the principal carries no other (auth-service.ts).
import type { Context } from 'hono';
import { z } from 'zod';
import { registerUser, userStream } from '../../commands/users/user-commands.js';
import { Forbidden } from '../../domain/shared/errors.js';
import type { AppEnv } from '../platform/app-env.js';
import type { RouteServices } from './services.js';
import { commandMetadata } from './write.js';

export async function ensureKnownUser(c: Context<AppEnv>, services: RouteServices): Promise<void> {
  const principal = c.get('principal');
  if (principal.source !== 'external') return;
  if ((await services.commands.eventStore.streamRevision(userStream(principal.userId))) !== null) return;
  const email = z.email().safeParse(principal.email);
  if (!email.success) {
    throw new Forbidden(
      "The identity provider's token carries no verified e-mail address; one is needed to create your account",
    );
  }
  await registerUser(
    services.commands,
    { userId: principal.userId, email: email.data },
    { ...commandMetadata(c, services), orgId: null },
  );
}
