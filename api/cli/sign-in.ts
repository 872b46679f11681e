// `cli mail last --to <email>`: the newest message of the local mailbox to that address (its link alone on the
// last line). `cli sign-in-link --email <email> [--return-to <path>]`: a one-time sign-in URL on the last line,
// the kind a mailed link is (opening it shows the Continue button); how an operator signs in without mail.
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { LocalMailbox } from '../../infra/mail/local-mailbox.js';
import { SignInLinks, signInLinkMinutes, verifyUrl } from '../sign-in/links.js';
import { safeReturnTo } from '../sign-in/sessions.js';
import { MAIL_USAGE, SIGN_IN_LINK_USAGE } from './usage.js';
export { MAIL_USAGE, SIGN_IN_LINK_USAGE } from './usage.js';

export interface SignInCliDeps {
  db: Kysely<unknown>;
  publicBaseUrl: string;
  /** Set when mail goes to an SMTP server rather than the local mailbox. */
  smtpConfigured: boolean;
  out: (line: string) => void;
}

function parse<T extends Record<string, { type: 'string' }>>(
  args: string[],
  options: T,
  usage: string,
  out: (l: string) => void,
) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    out(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return null;
  }
}

export async function mailCommand(args: string[], deps: SignInCliDeps): Promise<number> {
  const parsed = parse(args, { to: { type: 'string' } }, MAIL_USAGE, deps.out);
  if (!parsed) return 2;
  const to = z.email().safeParse(parsed.values.to?.trim());
  if (parsed.positionals.join(' ') !== 'last' || !to.success) {
    deps.out(MAIL_USAGE);
    return 2;
  }
  const mail = await new LocalMailbox(deps.db).lastTo(to.data);
  if (!mail) {
    deps.out(
      deps.smtpConfigured
        ? `no message to ${to.data} in the local mailbox (SMTP_URL is set: mail goes to the SMTP server)`
        : `no message to ${to.data}`,
    );
    return 1;
  }
  deps.out(`To: ${mail.to}`);
  deps.out(`Date: ${mail.createdAt.toISOString()}`);
  deps.out(`Subject: ${mail.subject}`);
  deps.out('');
  const body = mail.text.trimEnd();
  for (const line of body.split('\n')) deps.out(line);
  const links = body.match(/https?:\/\/[^\s<>"]+/g) ?? [];
  const link = links[links.length - 1];
  if (link && body.split('\n').pop() !== link) deps.out(link);
  return 0;
}

export async function signInLinkCommand(args: string[], deps: SignInCliDeps): Promise<number> {
  const parsed = parse(
    args,
    { email: { type: 'string' }, 'return-to': { type: 'string' } },
    SIGN_IN_LINK_USAGE,
    deps.out,
  );
  if (!parsed) return 2;
  const email = z.email().safeParse(parsed.values.email?.trim());
  if (!email.success || parsed.positionals.length > 0) {
    deps.out(`--email must be an e-mail address\n${SIGN_IN_LINK_USAGE}`);
    return 2;
  }
  const wanted = parsed.values['return-to'];
  const returnTo = safeReturnTo(wanted);
  if (wanted !== undefined && returnTo !== wanted) {
    deps.out(`--return-to must be a path of this service starting with a single /\n${SIGN_IN_LINK_USAGE}`);
    return 2;
  }
  const { token, expiresAt } = await new SignInLinks(deps.db).issue(email.data, returnTo);
  deps.out(
    `sign-in link for ${email.data}, once, until ${expiresAt.toISOString()} (${signInLinkMinutes} minutes):`,
  );
  deps.out(verifyUrl(deps.publicBaseUrl, token));
  return 0;
}
