// Picks the mailer from the configuration: SMTP when SMTP_URL is set, else the local mailbox.
import type { Kysely } from 'kysely';
import { LocalMailbox } from './local-mailbox.js';
import type { Mailer } from './port.js';
import { SmtpMailer } from './smtp-mailer.js';

export type { MailMessage, Mailer } from './port.js';
export { LocalMailbox, localMailboxMigrations } from './local-mailbox.js';
export { SmtpMailer } from './smtp-mailer.js';

export function createMailer(
  env: { SMTP_URL?: string | undefined; MAIL_FROM?: string | undefined },
  db: Kysely<unknown>,
): Mailer {
  if (env.SMTP_URL) return new SmtpMailer({ url: env.SMTP_URL, from: env.MAIL_FROM ?? 'no-reply@localhost' });
  return new LocalMailbox(db);
}
