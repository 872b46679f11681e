// The mail port: what the service sends (sign-in links). SMTP when SMTP_URL is set, else a local mailbox in
// PostgreSQL that the CLI reads (`npm run cli -- mail last --to <email>`), so the embedded default needs no mail server.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
