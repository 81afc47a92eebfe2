// Work packages for remote miners (mc_getWork / mc_submitWork), as geth's remote sealer keeps
// them: the current package is a block built on the head; several may exist for one height as
// transactions arrive; a package whose parent is no longer the head is stale; packages are
// forgotten after 7 heights. Each package keeps its own trie writes until it is sealed.

import type { Blockchain } from '../blockchain/blockchain.js';
import { sealHash } from '../chain/block.js';
import type { PowEngine } from '../consensus/powEngine.js';
import { bytesToBigint, equalBytes } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { TrieNodeStore } from '../state/trieNodeStore.js';
import type { TxPool } from '../txpool/txPool.js';
import type { BuiltBlock } from '../execution/blockProcessor.js';
import type { Miner } from './miner.js';

/** How many heights a package stays claimable (then it is forgotten). */
export const PACKAGE_HEIGHTS = 7n;
/** At most this many packages are kept at once (oldest dropped first). */
export const MAX_PACKAGES = 64;
/** Submitted hash rates count for this long. */
export const HASHRATE_WINDOW_MS = 10_000;

export interface Work {
  sealHash: Uint8Array;
  seedHash: Uint8Array;
  target: Uint8Array;
}

interface Package {
  built: BuiltBlock;
  nodes: TrieNodeStore;
  sealHash: Uint8Array;
}

export class WorkPackages {
  private readonly packages = new Map<string, Package>();
  private current: Package | undefined;
  private poolVersion = 0;
  private currentPoolVersion = -1;
  private readonly rates = new Map<string, { rate: bigint; at: number }>();
  private building: Promise<Package> | undefined;

  /** @param nodes the chain's node store: packages keep their writes apart and read through it */
  constructor(
    private readonly nodes: TrieNodeStore,
    private readonly chain: Blockchain,
    pool: TxPool,
    private readonly miner: Miner,
    private readonly pow: PowEngine,
  ) {
    const bump = () => this.poolVersion++;
    pool.on('pendingTx', bump);
    pool.on('dropped', bump);
    chain.on('newHead', ({ block }) => this.forgetBelow(block.header.number + 1n - PACKAGE_HEIGHTS));
  }

  /** The current package, rebuilt when the head or the pool changed since it was made. */
  async getWork(): Promise<Work> {
    const pkg = await this.currentPackage();
    return {
      sealHash: pkg.sealHash,
      seedHash: this.pow.seedHash(pkg.built.header.number),
      target: this.pow.target(pkg.built.header.difficulty),
    };
  }

  private async currentPackage(): Promise<Package> {
    const fresh =
      this.current &&
      equalBytes(this.current.built.header.parentHash, this.chain.head.hash) &&
      this.currentPoolVersion === this.poolVersion;
    if (fresh) return this.current!;
    if (!this.building) {
      const version = this.poolVersion;
      this.building = (async () => {
        const nodes = TrieNodeStore.scratchOver(this.nodes);
        const built = await this.miner.buildPending(nodes);
        const pkg: Package = { built, nodes, sealHash: sealHash(built.header) };
        this.packages.set(bytesToHex(pkg.sealHash), pkg);
        this.trim();
        this.current = pkg;
        this.currentPoolVersion = version;
        return pkg;
      })().finally(() => {
        this.building = undefined;
      });
    }
    return this.building;
  }

  /** True when the solution seals a known, non-stale package; the block is then stored. */
  async submitWork(nonce: Uint8Array, hash: Uint8Array, mixDigest: Uint8Array): Promise<boolean> {
    const pkg = this.packages.get(bytesToHex(hash));
    if (!pkg) return false;
    if (!equalBytes(pkg.built.header.parentHash, this.chain.head.hash)) return false;
    const { number, difficulty } = pkg.built.header;
    if (await this.pow.check({ number, sealHash: hash, nonce, mixHash: mixDigest, difficulty })) return false;
    // The check awaited (an Ethash cache): the head may have moved meanwhile.
    if (!equalBytes(pkg.built.header.parentHash, this.chain.head.hash)) return false;
    const block = await this.miner.commitSealed(pkg.built, { nonce: bytesToBigint(nonce), mix: mixDigest }, pkg.nodes);
    if (!block) return false;
    this.packages.delete(bytesToHex(hash));
    return true;
  }

  submitHashrate(rate: bigint, id: Uint8Array): void {
    this.rates.set(bytesToHex(id), { rate, at: Date.now() });
    if (this.rates.size > 1024) this.rates.delete(this.rates.keys().next().value!);
  }

  /** Sum of rates submitted by remote miners in the last 10 s. */
  remoteHashrate(): bigint {
    const since = Date.now() - HASHRATE_WINDOW_MS;
    let total = 0n;
    for (const [id, entry] of this.rates) {
      if (entry.at < since) this.rates.delete(id);
      else total += entry.rate;
    }
    return total;
  }

  private forgetBelow(height: bigint): void {
    for (const [key, pkg] of this.packages) if (pkg.built.header.number < height) this.packages.delete(key);
  }

  private trim(): void {
    while (this.packages.size > MAX_PACKAGES) this.packages.delete(this.packages.keys().next().value!);
  }
}
