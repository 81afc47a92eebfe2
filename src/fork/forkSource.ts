// The upstream's state at a block, read through the fork cache (docs/fork-mode.md#state): an
// account (balance, nonce, code) or a slot is fetched on its first touch, written to the cache
// once the whole answer is in, and read from the cache ever after, by this fork, a restart, or
// another fork of the same block sharing the cache. Reads of the same thing at the same time share
// one fetch. An account the upstream reports empty (no nonce, balance or code) counts as absent,
// as EIP-161 has it; its storage is then zero without asking.

import { SharedFetches } from './sharedFetches.js';
import { keccak256 } from '../encoding/bytes.js';
import type { BaseAccountFields, BaseState } from '../state/baseState.js';
import type { AccountRecord, ForkCache } from './forkCache.js';
import type { Upstream } from './upstream.js';

/** A block of the upstream by number and hash: state is fetched by number and cached by hash. */
export interface BlockRef {
  number: bigint;
  hash: Uint8Array;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export class ForkSource {
  private readonly fetches = new SharedFetches();

  constructor(
    private readonly cache: ForkCache,
    /** the upstream, connected on first need (throws fork-unavailable when it cannot be) */
    private readonly upstream: () => Promise<Upstream>,
    /** reads answered by the cache, and reads that asked the upstream */
    readonly counters = { hits: 0, misses: 0 },
  ) {}

  /** The upstream's state at `block`, as the state layer reads it. */
  at(block: BlockRef): BaseState {
    return {
      account: async (address) => (await this.account(block, address)) ?? undefined,
      storage: (address, slot) => this.storage(block, address, slot),
      code: (codeHash) => this.cache.code(codeHash),
    };
  }


  async account(block: BlockRef, address: Uint8Array): Promise<AccountRecord> {
    const cached = await this.cache.account(block.hash, address);
    if (cached !== undefined) {
      this.counters.hits++;
      return cached;
    }
    return this.fetches.once(`a${hex(block.hash)}${hex(address)}`, async () => {
      this.counters.misses++;
      const answer = await (await this.upstream()).account(address, block.number);
      const empty = answer.nonce === 0n && answer.balance === 0n && answer.code.length === 0;
      const record: BaseAccountFields | null = empty ? null : { nonce: answer.nonce, balance: answer.balance, codeHash: keccak256(answer.code) };
      await this.cache.putAccount(block.hash, address, record, answer.code);
      return record;
    });
  }

  async storage(block: BlockRef, address: Uint8Array, slot: Uint8Array): Promise<bigint> {
    const cached = await this.cache.slot(block.hash, address, slot);
    if (cached !== undefined) {
      this.counters.hits++;
      return cached;
    }
    return this.fetches.once(`s${hex(block.hash)}${hex(address)}${hex(slot)}`, async () => {
      if ((await this.account(block, address)) === null) return 0n;
      this.counters.misses++;
      const word = await (await this.upstream()).storage(address, slot, block.number);
      await this.cache.putSlot(block.hash, address, slot, word);
      return word;
    });
  }
}
