// One LISTEN connection per channel, opened lazily and re-opened after it drops; notifications call the handler.
// Shared by the event store (appends) and the read-your-writes waiter (projection checkpoints).
import pg from 'pg';

export class PgListener {
  private client: pg.Client | null = null;
  private ready: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly channel: string,
    private readonly onNotification: (payload: string | undefined) => void,
    private readonly applicationName = `listen-${channel}`,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Invalid channel name: ${channel}`);
  }

  /** Resolves once the connection listens; a failure leaves it closed so the next call tries again. */
  ensure(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.ready) return this.ready;
    const client = new pg.Client({ connectionString: this.url, application_name: this.applicationName });
    this.client = client;
    const reset = () => {
      if (this.client === client) {
        this.client = null;
        this.ready = null;
      }
    };
    client.on('error', reset);
    client.on('end', reset);
    client.on('notification', (message) => this.onNotification(message.payload));
    this.ready = client
      .connect()
      .then(() => client.query(`listen ${this.channel}`))
      .then(() => undefined)
      .catch((error: unknown) => {
        reset();
        throw error;
      });
    return this.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    this.ready = null;
    if (client) await client.end().catch(() => undefined);
  }
}
