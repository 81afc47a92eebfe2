// The `mc/63` capability: MOAC's name for eth/63 (same message codes, a 52-code space). The
// library's eth protocol class does the Status exchange (network id and genesis must match,
// else it throws and the peer is disconnected) and snappy framing; this subclass only narrows
// what it accepts to the eth/63 codes and the size limit.

import { ETH } from '@ethereumjs/devp2p';
import { MC_LENGTH, MC_VERSION, MAX_MESSAGE_BYTES, Msg } from './mcMessages.js';

const KNOWN = new Set<number>(Object.values(Msg));

export class McProtocol extends ETH {
  override _handleMessage(code: number, data: Uint8Array): void {
    // A throw here makes the library disconnect the peer (subprotocol error).
    if (!KNOWN.has(code)) throw new Error(`unknown mc/63 message code ${code}`);
    if (data.length > MAX_MESSAGE_BYTES) throw new Error(`message of ${data.length} bytes exceeds the limit`);
    super._handleMessage(code as never, data);
  }
}

export const MC_CAPABILITY = { name: 'mc', version: MC_VERSION, length: MC_LENGTH, constructor: McProtocol };
