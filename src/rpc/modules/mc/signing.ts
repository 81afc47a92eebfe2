// Signing without sending, and sending with the receipt in the answer
// (docs/methods.md#signing-without-sending-and-sending-with-the-receipt): eth_signTypedData_v4
// (EIP-712; also _v3 and the bare name, which wallets use for the same document),
// eth_signTransaction (geth's {raw, tx}), eth_sendRawTransactionSync (EIP-7966) and Anvil's
// eth_sendTransactionSync.

import { asTypedData, typedDataDigest } from '../../../accounts/typedData.js';
import type { SignedTx } from '../../../chain/types.js';
import { bytesToHex } from '../../../encoding/hex.js';
import { timedOut } from '../../../errors.js';
import { address, count, data, decodeArg, method, optional, ParamError, type Codec } from '../../params.js';
import { formatReceipt, formatTransaction } from '../../format.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';
import { txRequest } from './transactions.js';

/** EIP-7966 leaves the default to the node: long enough for an interval-mined devnet block. */
export const SYNC_SEND_DEFAULT_MS = 20_000;
const SYNC_SEND_MAX_MS = 60_000;

/** A typed-data document (an object, or its JSON text as MetaMask-style callers send it), decoded to its digest. */
const typedDataDigestOf: Codec<Uint8Array> = (v, i) => decodeArg(i, () => typedDataDigest(asTypedData(v)));

const syncTimeout: Codec<number> = (v, i) => {
  const ms = count(v, i);
  if (ms > SYNC_SEND_MAX_MS) throw new ParamError(i, `at most ${SYNC_SEND_MAX_MS} ms`);
  return ms;
};

export function signingMethods(backend: McBackend): Record<string, RpcMethod> {
  const signTyped = method([address, typedDataDigestOf], (from, digest) => bytesToHex(backend.signDigest(from, digest)));
  const receiptOnceMined = async (tx: SignedTx, timeout: number | undefined) => {
    const ms = timeout || SYNC_SEND_DEFAULT_MS;
    const at = await backend.waitForTransaction(tx.hash, ms);
    if (!at) throw timedOut(`the transaction was added to the pool but not mined within ${ms} ms`, tx.hash);
    const receipts = (await backend.receipts(at.block.hash)) ?? [];
    let firstLogIndex = 0;
    for (let i = 0; i < at.index; i++) firstLogIndex += receipts[i].logs.length;
    return formatReceipt(tx, receipts[at.index], at.block, at.index, firstLogIndex);
  };
  return {
    mc_signTypedData: signTyped,
    mc_signTypedData_v3: signTyped,
    mc_signTypedData_v4: signTyped,
    mc_signTransaction: method([txRequest], async (req) => {
      const tx = await backend.signTransaction(req);
      return { raw: bytesToHex(tx.raw), tx: formatTransaction(tx) };
    }),
    mc_sendRawTransactionSync: method([data, optional(syncTimeout)], async (raw, timeout) => {
      const tx = decodeArg(0, () => backend.decodeRawTransaction(raw));
      await backend.submit(tx);
      return receiptOnceMined(tx, timeout);
    }),
    // The same for a transaction the node signs (Anvil's eth_sendTransactionSync).
    mc_sendTransactionSync: method([txRequest, optional(syncTimeout)], async (req, timeout) => receiptOnceMined(await backend.sendTransaction(req), timeout)),
  };
}
