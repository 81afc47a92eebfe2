// The addresses a transaction's execution touched: every call frame's caller, callee and code
// address, every contract it created, every SELFDESTRUCT beneficiary. The block processor and
// the index rebuild collect them from the EVM's message events (no step events: the cost is two
// listener calls per frame), and the address index (blockchain/addressIndex.ts) stores them.

import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import { hexToBytes } from '../encoding/hex.js';

export class TouchCollector {
  private readonly seen = new Map<string, Uint8Array>();

  enter(message: Message): void {
    this.add(message.caller.toString(), message.caller.bytes);
    if (message.to) this.add(message.to.toString(), message.to.bytes);
    const code = message._codeAddress;
    if (code) this.add(code.toString(), code.bytes);
  }

  exit(result: EVMResult): void {
    const exec = result.execResult;
    if (exec.exceptionError) return;
    if (result.createdAddress) this.add(result.createdAddress.toString(), result.createdAddress.bytes);
    // The frames' SELFDESTRUCTs accumulate in one map that the outermost frame returns.
    for (const beneficiary of exec.selfdestruct?.values() ?? []) this.add(beneficiary, undefined);
  }

  /** The addresses collected since the last take, and a fresh start. */
  take(): Uint8Array[] {
    const out = [...this.seen.values()];
    this.seen.clear();
    return out;
  }

  /** Listens to `evm`'s message events until the returned function is called. */
  attach(evm: EVM): () => void {
    const enter = (m: Message) => this.enter(m);
    const exit = (r: EVMResult) => this.exit(r);
    const events = evm.events!;
    events.on('beforeMessage', enter);
    events.on('afterMessage', exit);
    return () => {
      events.off('beforeMessage', enter);
      events.off('afterMessage', exit);
    };
  }

  private add(hex: string, bytes: Uint8Array | undefined): void {
    const key = hex.toLowerCase();
    if (!this.seen.has(key)) this.seen.set(key, bytes ?? hexToBytes(key));
  }
}
