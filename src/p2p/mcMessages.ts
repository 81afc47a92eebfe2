// The mc/63 message codes and limits, apart from the protocol class: sync and peer code name
// them without loading the devp2p library, which loads only when the network starts.

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
