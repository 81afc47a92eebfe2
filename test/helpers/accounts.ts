// The devnet's public test accounts (mnemonic "test test … junk", path m/44'/314'/0'/0/i) and
// a signing helper for raw transactions in tests.

import { signTransaction } from '../../src/chain/transaction.js';
import type { TxFields } from '../../src/chain/types.js';
import { bytesToHex, hexToBytes } from '../../src/encoding/hex.js';

export const DEV = [
  { address: '0xc4c4fb5146a694d58521b4a135564765b6cec4fa', key: '0xd318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817' },
  { address: '0xb46660faca84cbd3e790216dd75a9a9eede7f178', key: '0x44526d42a0c4e822f20f0625e0585338e69565d61275264d8b1dcd7d78daa681' },
  { address: '0xf2e8267e788c835e2f91354d3c1fbc4c7836ccf0', key: '0x48b57e7f9d653fbc6926f192c6ca7734b66efa3435740e8a8b1bef7e7a95333b' },
];

export const CHAIN_ID = 100n;
export const GWEI = 1_000_000_000n;

export function rawTx(key: string, fields: Partial<TxFields> & { nonce: bigint }, chainId = CHAIN_ID): { raw: string; hash: string } {
  const tx = signTransaction(
    {
      syscnt: 0n,
      gasPrice: 20n * GWEI,
      gas: 90_000n,
      to: null,
      value: 0n,
      data: new Uint8Array(),
      shardingFlag: 0n,
      via: null,
      ...fields,
    },
    hexToBytes(key),
    chainId,
  );
  return { raw: bytesToHex(tx.raw), hash: bytesToHex(tx.hash) };
}
