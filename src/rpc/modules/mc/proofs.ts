// mc_getProof (EIP-1186) and mc_feeHistory.

import { bytesToHex, encodeQuantity } from '../../../encoding/hex.js';
import { notFound, unsupported } from '../../../errors.js';
import { MAX_FEE_HISTORY_BLOCKS } from '../../../blockchain/feeHistory.js';
import { ParamError, address, blockTag, count, method, optional, quantity, type Codec } from '../../params.js';
import type { RpcMethod } from '../../types.js';
import type { McBackend } from '../../backend.js';

const slots: Codec<bigint[]> = (v, i) => {
  if (!Array.isArray(v)) throw new ParamError(i, `expected an array of storage keys`);
  return v.map((key, k) => {
    try {
      return quantity(typeof key === 'string' ? key.replace(/^0x0+(?=[0-9a-f])/i, '0x') : key, i);
    } catch (err) {
      throw new ParamError(i, `storage key ${k}: ${err instanceof ParamError ? err.reason : (err as Error).message}`);
    }
  });
};

const percentiles: Codec<number[]> = (v, i) => {
  if (!Array.isArray(v)) throw new ParamError(i, `expected an array of percentiles`);
  let previous = -1;
  return v.map((p) => {
    if (typeof p !== 'number' || !(p >= 0 && p <= 100)) throw new ParamError(i, `percentiles must be numbers from 0 to 100`);
    if (p < previous) throw new ParamError(i, `percentiles must be ascending`);
    previous = p;
    return p;
  });
};

export function proofMethods(backend: McBackend): Record<string, RpcMethod> {
  return {
    mc_getProof: method([address, slots, blockTag], async (addr, keys, tag) => {
      const resolved = await backend.blockAt(tag);
      if (!resolved) throw notFound('header not found');
      if (resolved.kind === 'pending') throw unsupported('proofs are served for mined blocks, not the pending block');
      const p = await backend.proof(resolved.block.header.stateRoot, addr, keys);
      return {
        address: bytesToHex(p.address),
        accountProof: p.accountProof.map(bytesToHex),
        balance: encodeQuantity(p.balance),
        codeHash: bytesToHex(p.codeHash),
        nonce: encodeQuantity(p.nonce),
        storageHash: bytesToHex(p.storageHash),
        storageProof: p.storageProof.map((s) => ({ key: encodeQuantity(s.key), value: encodeQuantity(s.value), proof: s.proof.map(bytesToHex) })),
      };
    }),
    mc_feeHistory: method([count, blockTag, optional(percentiles)], async (blocks, tag, pcts) => {
      if (blocks > MAX_FEE_HISTORY_BLOCKS) throw new ParamError(0, `at most ${MAX_FEE_HISTORY_BLOCKS} blocks`);
      const resolved = await backend.blockAt(tag === 'pending' ? 'latest' : tag);
      if (!resolved || resolved.kind !== 'mined') throw notFound('header not found');
      const h = await backend.feeHistory(blocks, resolved.block.header.number, pcts);
      const out: Record<string, unknown> = {
        oldestBlock: encodeQuantity(h.oldestBlock),
        // No base fee on MOAC: one zero per block plus the next block's.
        baseFeePerGas: Array.from({ length: h.gasUsedRatio.length + 1 }, () => '0x0'),
        gasUsedRatio: h.gasUsedRatio,
      };
      if (h.reward) out.reward = h.reward.map((prices) => prices.map((p) => encodeQuantity(p)));
      return out;
    }),
  };
}
