// eth_simulateV1 / mc_simulateV1 (design.md §17, geth's internal/ethapi simulate semantics): calls
// run as transactions in blocks built on top of a stored block, one simulated block per entry,
// each with its own block and state overrides, state carried from block to block. Everything
// happens on a scratch state over the database (as traces do): nothing is written, nothing
// reaches the pool or any cache. Simulation runs on the library EVM only; it is a chain of
// transactions, not a call, so the call interpreter's context does not apply.

import type { EVM, EVMResult, Message } from '@ethereumjs/evm';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address } from '@ethereumjs/util';
import { assembleHeader, blockFromParts, logsBloom } from '../chain/block.js';
import { impersonatedTx } from '../chain/systemTx.js';
import type { Block, Header, Log, Receipt, SignedTx } from '../chain/types.js';
import { keccak256 } from '../encoding/bytes.js';
import { SimulationError } from '../errors.js';
import type { TrieNodeStore } from '../state/trieNodeStore.js';
import type { WorldState } from '../state/worldState.js';
import { applyOverrides, type StateOverrides } from '../state/overrideState.js';
import { overriddenHeader, type BlockOverrides, type CallRequest } from './call.js';
import { applyTransaction, type BlockEnv } from './executor.js';
import { intrinsicGas } from './gas.js';
import { invalidOpcodeMessage } from './laterOpcodes.js';

/** At most this many blocks (with the gaps filled) per request, as geth and Anvil allow. */
export const MAX_SIMULATE_BLOCKS = 256;
/** Seconds between simulated blocks whose time is not given (geth's increment). */
const TIME_STEP = 12n;

/** The address transfer logs come from under `traceTransfers` (ERC-7528's native-asset address). */
export const TRANSFER_LOG_ADDRESS = Uint8Array.from(Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex'));
const TRANSFER_TOPIC = keccak256(new TextEncoder().encode('Transfer(address,address,uint256)'));

export interface SimCall extends CallRequest {
  nonce?: bigint;
}

export interface SimBlockRequest {
  blockOverrides?: BlockOverrides;
  stateOverrides?: StateOverrides;
  calls: SimCall[];
}

export interface SimOptions {
  /** nonce, balance and gas checks as for real transactions */
  validation: boolean;
  /** native transfers as ERC-20-like Transfer logs from TRANSFER_LOG_ADDRESS */
  traceTransfers: boolean;
}

export interface SimCallResult {
  status: 0 | 1;
  returnData: Uint8Array;
  gasUsed: bigint;
  logs: Log[];
  /** the EVM's error word (revert, out of gas…) when status is 0 */
  error?: string;
}

export interface SimulatedBlock {
  block: Block;
  receipts: Receipt[];
  calls: SimCallResult[];
}

export interface SimulatorDeps {
  world: WorldState;
  scratchNodes: () => TrieNodeStore;
  makeEvm: (sm: MerkleStateManager) => Promise<EVM>;
}

export class Simulator {
  constructor(private readonly deps: SimulatorDeps) {}

  async simulate(base: Block, requests: SimBlockRequest[], options: SimOptions): Promise<SimulatedBlock[]> {
    const plan = planBlocks(base.header, requests);
    const sm = await this.deps.world.stateManagerAt(base.header.stateRoot, this.deps.scratchNodes());
    const evm = await this.deps.makeEvm(sm);
    const out: SimulatedBlock[] = [];
    let parent = base;
    for (const { header: fields, request } of plan) {
      if (request?.stateOverrides !== undefined) await applyOverrides(sm, request.stateOverrides);
      const env: BlockEnv = { number: fields.number, timestamp: fields.timestamp, miner: fields.miner, difficulty: fields.difficulty, gasLimit: fields.gasLimit };
      const txs: SignedTx[] = [];
      const receipts: Receipt[] = [];
      const calls: SimCallResult[] = [];
      let gasUsed = 0n;
      for (const [i, call] of (request?.calls ?? []).entries()) {
        const { tx, result, receipt } = await this.runCall(evm, sm, call, env, gasUsed, options, i);
        txs.push(tx);
        receipts.push(receipt);
        calls.push(result);
        gasUsed += receipt.gasUsed;
      }
      const header = assembleHeader(
        { parentHash: parent.hash, miner: fields.miner, stateRoot: await sm.getStateRoot(), timestamp: fields.timestamp, number: fields.number,
          difficulty: fields.difficulty, gasLimit: fields.gasLimit, gasUsed, extraData: new Uint8Array() },
        txs, receipts,
      );
      const block = blockFromParts(header, txs);
      out.push({ block, receipts, calls });
      parent = block;
    }
    return out;
  }

  private async runCall(
    evm: EVM, sm: MerkleStateManager, call: SimCall, env: BlockEnv, gasUsed: bigint, options: SimOptions, index: number,
  ): Promise<{ tx: SignedTx; result: SimCallResult; receipt: Receipt }> {
    const from = call.from ?? new Uint8Array(20);
    let account = await sm.getAccount(new Address(from));
    // A sender the state does not know yet: a transaction creates it (its nonce becomes 1).
    if (account === undefined) await sm.putAccount(new Address(from), (account = new Account()));
    // Without validation the state's nonce is used whatever the call says (geth skips the check).
    const nonce = options.validation && call.nonce !== undefined ? call.nonce : account.nonce;
    const remaining = env.gasLimit - gasUsed;
    const gas = call.gas ?? remaining;
    const data = call.data ?? new Uint8Array();
    const isCreation = call.to === undefined;
    if (gas > remaining) throw new SimulationError(-38015, `block gas limit reached: ${gasUsed + gas} > ${env.gasLimit}`);
    const intrinsic = intrinsicGas(data, isCreation);
    if (gas < intrinsic) throw new SimulationError(-38013, `err: intrinsic gas too low: have ${gas}, want ${intrinsic} (supplied gas ${gas})`);
    const fields = { from, nonce, to: call.to ?? null, value: call.value ?? 0n, data, gas, gasPrice: call.gasPrice ?? 0n };
    const tx: SignedTx = { ...impersonatedTx(fields), from };
    const transfers = options.traceTransfers ? new TransferLogs(evm) : undefined;
    let applied;
    try {
      applied = await applyTransaction(evm, sm, tx, env, gasUsed, options.traceTransfers);
    } finally {
      transfers?.stop();
    }
    if (!applied.ok) throw rejected(applied.reason, index, from, nonce, account, fields.gas * fields.gasPrice + fields.value);
    const { receipt } = applied;
    const error = applied.error === 'invalid opcode'
      ? invalidOpcodeMessage(call.to === undefined ? data : await sm.getCode(new Address(call.to)), evm.common)
      : applied.error;
    const logs = [...(transfers?.logs ?? []), ...receipt.logs];
    const withTransfers = transfers === undefined ? receipt : { ...receipt, logs, logsBloom: logsBloom(logs) };
    return {
      tx,
      receipt: withTransfers,
      result: { status: receipt.status === 1 ? 1 : 0, returnData: applied.returnValue, gasUsed: receipt.gasUsed, logs, error },
    };
  }
}

/** A transaction the state refuses: geth's code and words. */
function rejected(reason: string, index: number, from: Uint8Array, nonce: bigint, account: Account, cost: bigint): SimulationError {
  const who = '0x' + Buffer.from(from).toString('hex');
  switch (reason) {
    case 'nonce too low':
      return new SimulationError(-38010, `err: nonce too low: address ${who}, tx: ${nonce} state: ${account.nonce} (call ${index})`);
    case 'nonce too high':
      return new SimulationError(-38011, `err: nonce too high: address ${who}, tx: ${nonce} state: ${account.nonce} (call ${index})`);
    case 'insufficient funds for gas * price + value':
      return new SimulationError(-38014, `err: insufficient funds for gas * price + value: address ${who} have ${account.balance} want ${cost} (call ${index})`);
    case 'exceeds block gas limit':
      return new SimulationError(-38015, `block gas limit reached (call ${index})`);
    case 'intrinsic gas too low':
      return new SimulationError(-38013, `err: intrinsic gas too low (call ${index})`);
    default:
      return new SimulationError(-32603, `${reason} (call ${index})`);
  }
}

interface PlannedBlock {
  header: Header;
  /** undefined for a block that fills a gap between two requested numbers */
  request: SimBlockRequest | undefined;
}

/**
 * The blocks to build: each request's number and time (the parent's plus one and plus 12 unless
 * overridden), strictly increasing, with empty blocks filling gaps, at most MAX_SIMULATE_BLOCKS.
 */
function planBlocks(base: Header, requests: SimBlockRequest[]): PlannedBlock[] {
  if (requests.length === 0) throw new SimulationError(-32602, 'empty input');
  const plan: PlannedBlock[] = [];
  let prev = base;
  const next = (header: Header, request: SimBlockRequest | undefined) => {
    plan.push({ header, request });
    if (plan.length > MAX_SIMULATE_BLOCKS) throw new SimulationError(-38026, 'too many blocks');
    prev = header;
  };
  const child = (parent: Header): Header => ({ ...parent, number: parent.number + 1n, timestamp: parent.timestamp + TIME_STEP });
  for (const request of requests) {
    const number = request.blockOverrides?.number ?? prev.number + 1n;
    if (number <= prev.number) throw new SimulationError(-38020, `block numbers must be in order: ${number} <= ${prev.number}`);
    if (number - prev.number > BigInt(MAX_SIMULATE_BLOCKS)) throw new SimulationError(-38026, 'too many blocks');
    while (prev.number + 1n < number) next(child(prev), undefined);
    const header = overriddenHeader(child(prev), { ...request.blockOverrides, number });
    if (header.timestamp <= prev.timestamp) {
      throw new SimulationError(-38021, `block timestamps must be in order: ${header.timestamp} <= ${prev.timestamp}`);
    }
    next(header, request);
  }
  return plan;
}

/** Native transfers of one transaction as Transfer logs, dropped with the frames that fail. */
class TransferLogs {
  readonly logs: Log[] = [];
  /** per open frame: where its logs start, and the log of a creation waiting for its address */
  private readonly frames: { start: number; pending?: Log }[] = [];
  private readonly onEnter = (m: Message) => this.enter(m);
  private readonly onExit = (r: EVMResult) => this.exit(r);

  constructor(private readonly evm: EVM) {
    evm.events!.on('beforeMessage', this.onEnter);
    evm.events!.on('afterMessage', this.onExit);
  }

  stop(): void {
    this.evm.events!.off('beforeMessage', this.onEnter);
    this.evm.events!.off('afterMessage', this.onExit);
  }

  private enter(m: Message): void {
    const frame: { start: number; pending?: Log } = { start: this.logs.length };
    this.frames.push(frame);
    if (m.value === 0n || m.delegatecall) return;
    const log = transferLog(m.caller.bytes, m.to?.bytes ?? new Uint8Array(20), m.value);
    this.logs.push(log);
    if (m.to === undefined) frame.pending = log;
  }

  private exit(r: EVMResult): void {
    const frame = this.frames.pop();
    if (frame === undefined) return;
    if (r.execResult.exceptionError) this.logs.length = frame.start;
    else if (frame.pending && r.createdAddress) frame.pending.topics[2] = word(r.createdAddress.bytes);
  }
}

function word(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): Log {
  const data = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) data[i] = Number(v & 0xffn);
  return { address: TRANSFER_LOG_ADDRESS, topics: [TRANSFER_TOPIC, word(from), word(to)], data };
}
