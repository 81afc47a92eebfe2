// console.log from contracts: a call to Hardhat's console address runs nothing on chain (the
// account has no code), so capturing its payload changes neither execution nor gas. The chain's
// EVM records the payloads of such calls when a capture is attached (ChainEvm._executeCall, the
// one place every library-run frame passes); our call interpreter hands a message that calls
// the address to the library (fastCall/engine.ts). Mined transactions carry their payloads in
// their receipts until the node logs them at `newHead`; calls, estimates and traces are logged
// when they finish. Without a capture (--no-console-log) nothing is recorded at all.

import type { EVM } from '@ethereumjs/evm';
import { bytesToBigint } from '../encoding/bytes.js';
import { hexToBytes } from '../encoding/hex.js';
import { decodeConsoleLog } from './consoleDecode.js';

export const CONSOLE_ADDRESS = hexToBytes('0x000000000000000000636f6e736f6c652e6c6f67');
/** The address as our interpreter's word. */
export const CONSOLE_WORD = bytesToBigint(CONSOLE_ADDRESS);

/** Where decoded lines go: the node's log, with the transaction hash or `call`. */
export type ConsoleSink = (label: string, line: string) => void;

/** The payloads of console calls since the last take, and where they are printed. */
export class ConsoleCapture {
  private calls: Uint8Array[] = [];

  constructor(private readonly sink: ConsoleSink) {}

  record(payload: Uint8Array): void {
    this.calls.push(payload.slice());
  }

  /** The payloads recorded since the last take (undefined: none). */
  take(): Uint8Array[] | undefined {
    if (this.calls.length === 0) return undefined;
    const out = this.calls;
    this.calls = [];
    return out;
  }

  /** Prints the payloads recorded since the last take under `label`. */
  flush(label: string): void {
    const calls = this.take();
    if (calls) printConsole(this.sink, label, calls);
  }
}

export function printConsole(sink: ConsoleSink, label: string, payloads: readonly Uint8Array[]): void {
  for (const payload of payloads) sink(label, decodeConsoleLog(payload) ?? `(undecoded console call ${Buffer.from(payload.subarray(0, 4)).toString('hex')})`);
}

/** The EVM's capture, when console.log is on. */
export function consoleOf(evm: EVM): ConsoleCapture | undefined {
  return (evm as { console?: ConsoleCapture }).console;
}

/** Whether `address` is the console address (most addresses differ in their first byte). */
export function isConsoleAddress(address: Uint8Array): boolean {
  if (address[0] !== 0 || address[19] !== 0x67) return false;
  for (let i = 1; i < 19; i++) if (address[i] !== CONSOLE_ADDRESS[i]) return false;
  return true;
}
