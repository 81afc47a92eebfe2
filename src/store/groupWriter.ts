// Coalesces small writes that arrive in one turn of the event loop into a single LevelDB batch
// (the pool journal gets one write per acknowledged transaction; under load many arrive
// together). Each caller still waits until its own operations are on disk.

import type { BatchOp, Database } from './database.js';

export class GroupWriter {
  private queued: BatchOp[] = [];
  private waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(private readonly db: Database) {}

  write(ops: BatchOp[]): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    this.queued.push(...ops);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    return done;
  }

  private async flush(): Promise<void> {
    const ops = this.queued;
    const waiters = this.waiters;
    this.queued = [];
    this.waiters = [];
    this.scheduled = false;
    try {
      await this.db.batch(ops);
      for (const w of waiters) w.resolve();
    } catch (err) {
      for (const w of waiters) w.reject(err);
    }
  }
}
