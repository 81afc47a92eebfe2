// One upstream fetch per key at a time: callers asking for the same thing while it is on its way
// share the request (a fork's state and history both read this way).

export class SharedFetches {
  private readonly running = new Map<string, Promise<unknown>>();

  once<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    const running = this.running.get(key);
    if (running) return running as Promise<T>;
    const job = fetch().finally(() => this.running.delete(key));
    this.running.set(key, job);
    return job;
  }
}
