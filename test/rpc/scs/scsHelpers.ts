// Helpers of the SCS tests: calls to both SCS variants, app-chain transactions signed as a
// user signs them (flag 1–3, `via` = the VNODE address, app-chain nonce, gas 0), and moving
// the main chain forward to a flush.

import { postJson, waitFor, type RpcReply, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { encodeAbi, functionSelector, parseAbiType, type AbiValue } from '../../../src/scs/abi.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { concatBytes } from '../../../src/encoding/bytes.js';

export const MC = 10n ** 18n;
/** The VNODE address by default: the first dev account. */
export const VIA = DEV[0].address;

let nextId = 1;

export interface Scs {
  /** raw reply of the `rpc` variant (`/`) */
  call(method: string, params?: unknown[]): Promise<RpcReply>;
  rpc(method: string, params?: unknown[]): Promise<any>;
  /** raw reply text of the rpcdebug variant (`/rpc`), to see exact numbers */
  debugText(name: string, params?: Record<string, unknown>): Promise<string>;
  debug(name: string, params?: Record<string, unknown>): Promise<any>;
}

export function scsOf(node: TestNode): Scs {
  const url = node.scsUrl!;
  const call = (method: string, params: unknown[] = []) => postJson(url, { jsonrpc: '2.0', id: nextId++, method, params });
  const debugText = async (name: string, params: Record<string, unknown> = {}) => {
    const res = await fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: `ScsRPCMethod.${name}`, params }),
    });
    return res.text();
  };
  return {
    call,
    async rpc(method, params) {
      const reply = await call(method, params);
      if (reply.error) throw Object.assign(new Error(`${method}: ${reply.error.message}`), { rpcError: reply.error });
      return reply.result;
    },
    debugText,
    async debug(name, params) {
      const reply = JSON.parse(await debugText(name, params));
      if (reply.error) throw Object.assign(new Error(`${name}: ${reply.error.message}`), { rpcError: reply.error });
      return reply.result;
    },
  };
}

/** ABI call data from a signature like `increment(uint256)`. */
export function callData(signature: string, ...args: AbiValue[]): string {
  const m = /^(\w+)\((.*)\)$/.exec(signature)!;
  const types = m[2] === '' ? [] : m[2].split(',').map(parseAbiType);
  return bytesToHex(concatBytes(functionSelector(m[1], types), encodeAbi(types, args)));
}

export interface AppTxFields {
  chain: string;
  nonce: bigint;
  value?: bigint;
  via?: string;
}

function appTx(key: string, f: AppTxFields, flag: bigint, data: string) {
  return rawTx(key, {
    nonce: f.nonce, to: hexToBytes(f.chain), value: f.value ?? 0n, data: hexToBytes(data), gas: 0n, gasPrice: 0n,
    shardingFlag: flag, via: hexToBytes(f.via ?? VIA),
  });
}

export const deployTx = (key: string, f: AppTxFields, code: string) => appTx(key, f, 3n, code);
export const callTx = (key: string, f: AppTxFields, dapp: string, data: string) => appTx(key, f, 1n, dapp + data.replace(/^0x/, ''));
export const transferTx = (key: string, f: AppTxFields, to: string) => appTx(key, f, 2n, to);

/** Sends a signed app-chain transaction to the VNODE and waits for its SCS receipt. */
export async function sendApp(node: TestNode, scs: Scs, chain: string, tx: { raw: string; hash: string }) {
  const hash = await node.rpc('mc_sendRawTransaction', [tx.raw]);
  if (hash !== tx.hash) throw new Error(`hash ${hash} is not ${tx.hash}`);
  return waitFor(() => scs.rpc('scs_getReceiptByHash', [chain, hash]), `app-chain receipt ${hash}`);
}

/** Sends a main-chain transaction and waits until it is mined (instant mining). */
export async function sendMain(node: TestNode, key: string, fields: Parameters<typeof rawTx>[1]) {
  const { raw, hash } = rawTx(key, fields);
  await node.rpc('mc_sendRawTransaction', [raw]);
  return waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `main-chain receipt ${hash}`);
}

/** Mines main-chain blocks (1-sha transfers from DEV[2]) until the head is `target`. */
export async function advanceTo(node: TestNode, target: number): Promise<void> {
  for (;;) {
    const head = Number(await node.rpc('mc_blockNumber'));
    if (head >= target) return;
    const nonce = BigInt(await node.rpc('mc_getTransactionCount', [DEV[2].address, 'pending']));
    await sendMain(node, DEV[2].key, { nonce, to: hexToBytes('0x' + '77'.repeat(20)), value: 1n, gas: 21_000n });
  }
}

export const mainBalance = async (node: TestNode, address: string) => BigInt(await node.rpc('mc_getBalance', [address, 'latest']));
export const appBalance = async (scs: Scs, chain: string, address: string) => BigInt(await scs.rpc('scs_getBalance', [chain, address]));

export const dappBaseCode = () => contract('DappBase').bytecode;
export const counter = () => contract('Counter');
