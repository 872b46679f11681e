// The invitation e-mail and its link: the token travels only here (the service keeps its SHA-256), in the link
// to the acceptance page, alone on the text's last line (what `cli mail last --to <email>` prints last).
import { randomBytes } from 'node:crypto';
import { ServiceUnavailable } from '../../domain/shared/errors.js';
import { roleNames, type Role } from '../../domain/workspaces/roles.js';
import type { MailMessage, Mailer } from '../../infra/mail/port.js';

/** 32 random bytes, base64url, prefixed so a leaked one is recognisable in a log. */
export function newInvitationToken(): string {
  return `spi_${randomBytes(32).toString('base64url')}`;
}

export const acceptancePath = '/invitations/accept';

export function acceptanceUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}${acceptancePath}?token=${encodeURIComponent(token)}`;
}

/** How an invitation's expiry reads to the invitee, in the mail and on the acceptance page: `2026-11-29 10:00 UTC`. */
export const expiryText = (expiresAt: string) => `${expiresAt.slice(0, 16).replace('T', ' ')} UTC`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function invitationMail(o: {
  to: string;
  orgName: string;
  roleKey: Role;
  inviter: string | null;
  expiresAt: string;
  url: string;
}): MailMessage {
  const role = roleNames[o.roleKey];
  const who = o.inviter ? `${o.inviter} invited you` : 'You are invited';
  const expires = expiryText(o.expiresAt);
  const lead = `${who} to join ${o.orgName} as ${role}.`;
  const how = `The invitation works once, until ${expires}. Open the link to accept it; you sign in with this address (${o.to}) first if you have not yet. If you did not expect this invitation, ignore this mail.`;
  return {
    to: o.to,
    subject: `Join ${o.orgName} as ${role}`,
    text: `${lead}\n\n${how}\n\n${o.url}\n`,
    html: `<!doctype html><html lang="en"><body><p>${escapeHtml(lead)}</p><p>${escapeHtml(how)}</p><p><a href="${escapeHtml(o.url)}">Accept the invitation</a></p></body></html>`,
  };
}

/** Waits between attempts: a mail server that hiccups gets two more tries before the request gives up. */
const retryDelaysMs = [200, 800];

/** Sends the mail, retrying twice; a 503 `mail_not_sent` when every attempt failed. */
export async function sendInvitationMail(
  mailer: Mailer,
  message: MailMessage,
  onFailure?: (error: unknown, attempt: number) => void,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await mailer.send(message);
      return;
    } catch (error) {
      onFailure?.(error, attempt + 1);
      const delay = retryDelaysMs[attempt];
      if (delay === undefined)
        throw new ServiceUnavailable(
          'The invitation e-mail could not be sent, so no invitation was recorded; try again later',
          'mail_not_sent',
        );
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
