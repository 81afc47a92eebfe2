// The `mc/63` capability: MOAC's name for eth/63 (same message codes, a 52-code space). The
// library's eth protocol class does the Status exchange (network id and genesis must match,
// else it throws and the peer is disconnected) and snappy framing; this subclass only narrows
// what it accepts to the eth/63 codes and the size limit.

import { ETH } from '@ethereumjs/devp2p';

export const MC_VERSION = 63;
/** MOAC reserves 52 message codes for mc/63 after the base protocol. */
export const MC_LENGTH = 52;
/** Larger messages end the connection. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export const Msg = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  GetNodeData: 0x0d,
  NodeData: 0x0e,
  GetReceipts: 0x0f,
  Receipts: 0x10,
} as const;
export type MsgCode = (typeof Msg)[keyof typeof Msg];

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
