// The local mailbox: messages kept in PostgreSQL instead of sent, so another process (the CLI, a test) on the
// same database can read them. What the embedded default uses when no SMTP server is configured.
import { sql, type Kysely, type Migration } from 'kysely';
import type { MailMessage, Mailer } from './port.js';

export const localMailboxMigrations: Record<string, Migration> = {
  '0021_local_mailbox': {
    async up(db) {
      await sql`
        create table local_mailbox (
          id bigserial primary key,
          recipient text not null,
          subject text not null,
          text_body text not null,
          html_body text null,
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index local_mailbox_recipient on local_mailbox (lower(recipient), id desc)`.execute(
        db,
      );
    },
    async down(db) {
      await sql`drop table local_mailbox`.execute(db);
    },
  },
};

export interface StoredMail extends MailMessage {
  createdAt: Date;
}

export class LocalMailbox implements Mailer {
  constructor(private readonly db: Kysely<unknown>) {}

  async send(message: MailMessage): Promise<void> {
    await sql`
      insert into local_mailbox (recipient, subject, text_body, html_body)
      values (${message.to}, ${message.subject}, ${message.text}, ${message.html ?? null})`.execute(this.db);
  }

  /** The newest message to this address (the address compared case-insensitively), or null. */
  async lastTo(to: string): Promise<StoredMail | null> {
    const { rows } = await sql<{
      recipient: string;
      subject: string;
      text_body: string;
      html_body: string | null;
      created_at: Date | string;
    }>`
      select recipient, subject, text_body, html_body, created_at from local_mailbox
      where lower(recipient) = lower(${to.trim()}) order by id desc limit 1`.execute(this.db);
    const row = rows[0];
    if (!row) return null;
    return {
      to: row.recipient,
      subject: row.subject,
      text: row.text_body,
      ...(row.html_body !== null ? { html: row.html_body } : {}),
      createdAt: new Date(row.created_at),
    };
  }
}
