// The addresses one transaction's frames touched, as the block processor collects them while
// building (execution/touchCollector.ts): the address index's rebuild replays old blocks with it.

import type { EVMResult, Message } from '@ethereumjs/evm';
import { TouchCollector } from '../execution/touchCollector.js';
import type { Tracer } from './tracer.js';

export class TouchTracer implements Tracer<Uint8Array[]> {
  private readonly collector = new TouchCollector();

  enter(message: Message): void {
    this.collector.enter(message);
  }

  exit(result: EVMResult): void {
    this.collector.exit(result);
  }

  finish(): Uint8Array[] {
    return this.collector.take();
  }
}
