// Queries behind the SCS methods, shared by both variants: the `rpc` one (scs.ts) and
// `rpcdebug` (scsRpcMethod.ts) differ only in how they decode params and write integers.

import { invalidParams, limitExceeded } from '../../errors.js';
import { bytesToHex, type BlockTag } from '../../encoding/hex.js';
import type { AppChain } from '../../scs/appChain.js';
import type { ScsService } from '../../scs/scsService.js';
import type { RecordList } from '../../scs/exchange.js';
import { ParamError } from '../params.js';
import { chainInfo, recordLists, type PageRequest, type Shape, type scsBlock } from './scsFormat.js';

export interface ScsContext {
  scs: ScsService;
  /** absolute data directory (scs_datadir) */
  datadir: string;
}

/** Most blocks one scs_getBlockList / GetBlocks answer holds. */
export const MAX_BLOCK_LIST = 1000;

export async function blockAt(chain: AppChain, tag: BlockTag | undefined) {
  if (tag === undefined || tag === 'latest' || tag === 'pending') return chain.head;
  return chain.block(tag === 'earliest' ? 0n : tag);
}

export async function blockList(chain: AppChain, start: BlockTag, end: BlockTag, format: typeof scsBlock) {
  const from = numberOf(chain, start);
  const to = numberOf(chain, end);
  if (to < from) throw invalidParams(`invalid block range: end block ${to} is below start block ${from}`);
  const last = to < chain.head.header.number ? to : chain.head.header.number;
  if (last - from + 1n > BigInt(MAX_BLOCK_LIST)) throw limitExceeded(`block list of more than ${MAX_BLOCK_LIST} blocks`);
  const blocks: Shape[] = [];
  for (let n = from; n <= last; n++) blocks.push(format((await chain.block(n))!));
  return { blocks, from, to };
}

function numberOf(chain: AppChain, tag: BlockTag): bigint {
  if (tag === 'earliest') return 0n;
  if (tag === 'latest' || tag === 'pending') return chain.head.header.number;
  return tag;
}

/** Dapp address and call data: `dappAddr` when given, else the first 20 bytes of `data`. */
export function splitCall(dappAddr: Uint8Array | undefined, payload: Uint8Array | undefined, argument: number | string) {
  const input = payload ?? new Uint8Array();
  if (dappAddr) return { dapp: dappAddr, data: input };
  if (input.length < 20) throw new ParamError(argument, 'name the Dapp with dappAddr, or start data with its 20-byte address');
  return { dapp: input.subarray(0, 20), data: input.subarray(20) };
}

export async function directCall(chain: AppChain, from: Uint8Array | undefined, dapp: Uint8Array, input: Uint8Array, tag?: BlockTag) {
  const block = await blockAt(chain, tag);
  return chain.directCall(from, dapp, input, block?.header);
}

export async function exchangeByAddress(chain: AppChain, user: Uint8Array, pages: PageRequest[]) {
  const lists: RecordList[] = ['Deposit', 'Depositing', 'Withdraw', 'Withdrawing'];
  return {
    ...recordLists(chain.records, lists.map((l, i) => [l, pages[i]]), user),
    microchain: chain.key,
    sender: bytesToHex(user),
  };
}

export function exchangeInfo(scs: ScsService, chain: AppChain, depositing: PageRequest, withdrawing: PageRequest) {
  return {
    ...recordLists(chain.records, [['Depositing', depositing], ['Withdrawing', withdrawing]]),
    microchain: chain.key,
    scsid: bytesToHex(scs.scsId),
  };
}

/** The MicroChain info's `balance`: the DappBase's app-chain tokens not yet exchanged. */
export async function infoOf(chain: AppChain, capitalised: boolean) {
  const balance = chain.dappBase ? await chain.balanceOf(chain.dappBase) : 0n;
  return chainInfo(chain, balance, capitalised);
}

export async function poolOf(chain: AppChain) {
  return chain.pool.content((a) => chain.nonceOf(a));
}

