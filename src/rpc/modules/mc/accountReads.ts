// Reads by account that Anvil, reth and forking tools use (docs/methods.md#more-reads):
// an account's balance, nonce and code at once, the transaction a sender sent with a nonce, and
// the pool's transactions.

import { keccak256 } from '../../../encoding/bytes.js';
import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { address, blockTag, method, uint64, withDefault } from '../../params.js';
import { formatTransaction } from '../../format.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

const latest = withDefault(blockTag, 'latest' as const);
const EMPTY_TRIE_ROOT = keccak256(Uint8Array.of(0x80));
const EMPTY_CODE_HASH = keccak256(new Uint8Array());

export function accountReadMethods(backend: McBackend): Record<string, RpcMethod> {
  return {
    mc_getAccountInfo: method([address, latest], async (addr, tag) => {
      const state = await backend.stateAt(tag);
      const account = await state.getAccount(addr);
      return {
        balance: encodeQuantity(account?.balance ?? 0n),
        nonce: encodeQuantity(account?.nonce ?? 0n),
        code: bytesToHex(await state.getCode(addr)),
      };
    }),
    // geth's eth_getAccount: the account's four trie fields.
    mc_getAccount: method([address, latest], async (addr, tag) => {
      const account = await (await backend.stateAt(tag)).getAccount(addr);
      return {
        nonce: encodeQuantity(account?.nonce ?? 0n),
        balance: encodeQuantity(account?.balance ?? 0n),
        storageRoot: bytesToHex(account ? account.storageRoot : EMPTY_TRIE_ROOT),
        codeHash: bytesToHex(account ? account.codeHash : EMPTY_CODE_HASH),
      };
    }),
    // EIP-1102's name for the accounts a wallet exposes: here, the node's own.
    mc_requestAccounts: method([], () => backend.accounts().map(bytesToHex)),
    mc_getTransactionBySenderAndNonce: method([address, uint64], async (sender, nonce) => {
      const found = await backend.transactionBySenderAndNonce(sender, nonce);
      if (!found) return null;
      const { tx, at } = found;
      return formatTransaction(tx, at && { blockHash: at.block.hash, blockNumber: at.block.header.number, index: at.index });
    }),
    // Anvil's and Hardhat's answer: every pool transaction, not only the node's own accounts' (geth).
    mc_pendingTransactions: method([], () => backend.poolTransactions().map((tx) => formatTransaction(tx))),
  };
}
