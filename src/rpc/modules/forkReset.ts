// anvil_reset / hardhat_reset in a fork (docs/fork-mode.md#resetting-and-re-forking): back to the
// fork block, or `{forking: {jsonRpcUrl?, blockNumber?}}` to another block or upstream.

import type { ForkReset, Forking } from '../../devControls/forkReset.js';
import { ParamError, integer, member, method, objectParam, optional, string, type Codec } from '../params.js';
import type { RpcMethod } from '../types.js';

/** `{forking?: {jsonRpcUrl?, blockNumber?}}` (Anvil's and Hardhat's shape). */
const resetOptions: Codec<Forking | undefined> = (v, i) => {
  const options = objectParam(v, i);
  const forking = options.forking;
  if (forking === undefined || forking === null) return undefined;
  if (typeof forking !== 'object' || Array.isArray(forking)) throw new ParamError(i, 'field "forking": expected an object');
  const f = forking as Record<string, unknown>;
  for (const key of Object.keys(f)) {
    if (key !== 'jsonRpcUrl' && key !== 'blockNumber') throw new ParamError(i, `field "forking": unknown member "${key}" (jsonRpcUrl, blockNumber)`);
  }
  return { jsonRpcUrl: member(f, 'jsonRpcUrl', string, i), blockNumber: member(f, 'blockNumber', (x, k) => integer(x, k), i) };
};

export function forkResetMethods(reset: ForkReset): Record<string, RpcMethod> {
  const resetting = (answer: true | null) => method([optional(resetOptions)], async (forking) => {
    await reset.reset(forking);
    return answer;
  });
  // Each tool's answer: Anvil's is null, Hardhat's true.
  return { anvil_reset: resetting(null), hardhat_reset: resetting(true) };
}
