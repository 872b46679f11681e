// Work that must run one at a time per key in this process (a post group's publishing jobs, a workspace's slot
// finders), while other keys go on: each call waits for the one before it under the same key, whether that one
// succeeded or failed. The key is forgotten once its last call is done.
export class PerKeyQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
