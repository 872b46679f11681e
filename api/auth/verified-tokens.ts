// Bearer tokens this process has verified, keyed by the whole token string, each kept until the token's own
// expiry: checking an ES256 signature costs more CPU than the rest of a cheap request. Only the signature and
// claims checks are saved; the session's end and the member's current role are still checked on every request
// (auth-service.ts). A token that differs in any byte is another key, so nothing forged can match an entry.
export class VerifiedTokens<T> {
  private readonly entries = new Map<string, { value: T; exp: number }>();

  /** `max` entries at most; when full, the oldest tenth is dropped (entries share one lifetime, so FIFO). */
  constructor(private readonly max = 10_000) {}

  /** The value stored for this exact token while it has not expired (`nowSeconds` < its `exp`). */
  get(token: string, nowSeconds: number): T | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (nowSeconds >= entry.exp) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps a verified token's value until `exp` (seconds, the token's claim). */
  set(token: string, value: T, exp: number, nowSeconds: number): void {
    if (this.max <= 0 || exp <= nowSeconds) return;
    if (this.entries.size >= this.max) {
      let drop = Math.max(1, Math.floor(this.max / 10));
      for (const key of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(key);
      }
    }
    this.entries.set(token, { value, exp });
  }

  get size(): number {
    return this.entries.size;
  }
}
