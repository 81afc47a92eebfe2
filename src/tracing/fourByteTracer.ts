// geth's 4byteTracer: how often each function selector was called, keyed by selector and the
// length of the arguments ("0x27dc297e-128"). Creations and precompiles are not counted.

import type { Message } from '@ethereumjs/evm';
import { bytesToHex } from '../encoding/hex.js';
import type { Tracer } from './tracer.js';

export class FourByteTracer implements Tracer<Map<string, number>> {
  private readonly counts = new Map<string, number>();

  constructor(private readonly isPrecompile: (address: Uint8Array) => boolean) {}

  enter(message: Message): void {
    if (!message.to || message.isCreate || message.data.length < 4) return;
    const target = message._codeAddress ?? message.to;
    if (this.isPrecompile(target.bytes)) return;
    const key = `${bytesToHex(message.data.subarray(0, 4))}-${message.data.length - 4}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  finish(): Map<string, number> {
    return this.counts;
  }
}
