// The block-file subcommands: `export <file> [from] [to]`, `import <file>` and
// `fixture <script.json>`. Each opens the datadir's database itself (no RPC servers, no pool),
// shows progress on stdout and turns a refused file into one message naming the block.

import { availableParallelism } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Invocation } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { createLogger, type Logger } from '../log.js';
import { createProgress } from '../runtime/progress.js';
import { Database } from '../store/database.js';
import { Blockchain } from '../blockchain/blockchain.js';
import type { Block } from '../chain/types.js';
import { Sealer } from '../miner/sealer.js';
import { ChainFileError } from '../chainFile/chainFileError.js';
import { exportChain, exportRange } from '../chainFile/exportChain.js';
import { ImportError, importChain } from '../chainFile/importChain.js';
import { BlockImporter } from '../importer/blockImporter.js';
import { countItems } from '../chainFile/rlpStream.js';
import { parseFixtureScript } from '../fixture/script.js';
import { buildFixture } from '../fixture/buildFixture.js';
import { fixtureGenesisSpec, genesisJson } from '../fixture/fixtureGenesis.js';
import { devAccounts, difficultyRule, openChainCore } from '../node/chainCore.js';

const describe = (block: Block) => `#${block.header.number} ${bytesToHex(block.hash)}`;

/** Runs `work` on the datadir's database and closes it, whatever happens. */
async function withDatabase<T>(config: Config, work: (db: Database) => Promise<T>): Promise<T> {
  let db: Database;
  try {
    db = await Database.open(path.join(config.datadir, 'chaindata'));
  } catch (err) {
    if (err instanceof ConfigError && /datadir in use/.test(err.message)) {
      throw new ConfigError(`${err.message}; stop the node first, or call admin_exportChain / admin_importChain over its IPC socket`);
    }
    throw err;
  }
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Domain refusals become the CLI's one-line messages. */
function asConfigError(err: unknown): unknown {
  return err instanceof ChainFileError ? new ConfigError(err.message) : err;
}

export async function exportCommand(inv: Invocation): Promise<void> {
  const [file, fromArg, toArg] = inv.args;
  const from = fromArg === undefined ? undefined : BigInt(fromArg);
  const to = toArg === undefined ? undefined : BigInt(toArg);
  await withDatabase(inv.config, async (db) => {
    const chain = await Blockchain.open(db);
    if (!chain) throw new ConfigError(`${inv.config.datadir} holds no chain to export`);
    try {
      const range = exportRange(chain.head.header.number, from, to);
      const progress = createProgress({ verb: 'exported', total: Number(range.to - range.from + 1n) });
      const result = await exportChain(chain, file, { from, to, overwrite: true, onProgress: progress.update });
      progress.finish(result.blocks);
      process.stdout.write(`wrote blocks ${result.from}..${result.to} (${result.blocks} blocks, ${result.bytes} bytes) to ${file}\n`);
    } catch (err) {
      throw asConfigError(err);
    }
  });
}

export async function importCommand(inv: Invocation): Promise<void> {
  const [file] = inv.args;
  const { config } = inv;
  const log = createLogger(config.verbosity);
  const counted = await countItems(file).catch((err: Error) => {
    throw new ConfigError(`cannot read ${file}: ${err.message}`);
  });
  await withDatabase(config, async (db) => {
    const { chain, builder, nodes, pow, rules } = await openChainCore(config, db, log);
    const progress = createProgress({ verb: 'imported', total: counted.items });
    let done = 0;
    try {
      const importer = new BlockImporter({
        chain, builder, nodes, chainId: config.chain.chainId, difficulty: difficultyRule(config, chain.genesis),
        classicTxBlock: rules.classicTxBlock, pow,
      });
      const result = await importChain(
        { chain, importer },
        file,
        { onProgress: (n) => progress.update((done = n)) },
      );
      progress.finish(done);
      const known = result.known ? ` (${result.known} already known)` : '';
      process.stdout.write(`imported ${result.imported} blocks${known}, head ${describe(result.head)}\n`);
    } catch (err) {
      progress.finish(done);
      if (err instanceof ImportError) {
        throw new ConfigError(`${err.message}; kept ${err.result.imported} imported blocks, head ${describe(err.result.head)}`);
      }
      throw asConfigError(err);
    }
  });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read fixture script ${file}: ${(err as Error).message}`);
  }
}

export async function fixtureCommand(inv: Invocation, log: Logger = createLogger(inv.config.verbosity)): Promise<void> {
  const [file] = inv.args;
  const script = parseFixtureScript(readJson(file), file);
  // The script's genesis may name its chain id, as an init genesis does.
  const chainId = script.genesis.chainId ?? inv.config.chain.chainId;
  const config: Config = { ...inv.config, chain: { ...inv.config.chain, chainId } };
  const genesis = fixtureGenesisSpec(script, config.accounts.devBalance);
  const head = await withDatabase(config, async (db) => {
    const existing = await Blockchain.open(db);
    if (existing) throw new ConfigError(`${config.datadir} already holds a chain (head #${existing.head.header.number}); fixture needs a fresh --datadir`);
    const core = await openChainCore(config, db, log, genesis);
    const threads = config.mining.threads > 0 ? config.mining.threads : availableParallelism();
    const sealer = new Sealer({ threads, pow: core.pow });
    const firstDev = devAccounts(config)[0];
    const progress = createProgress({ verb: 'built', total: script.blocks.length });
    try {
      const built = await buildFixture(
        {
          ...core,
          seal: (hash, difficulty, number) => sealer.seal(hash, difficulty, { deterministic: true, number }),
          chainId,
          difficulty: difficultyRule(config, core.chain.genesis),
          coinbase: script.coinbase ?? config.mining.moacbase ?? (firstDev?.address ?? new Uint8Array(20)),
          targetGasLimit: config.mining.targetGasLimit,
          extraData: config.mining.extraData,
        },
        script,
        { onProgress: progress.update },
      );
      progress.finish(Number(built.header.number));
      return { block: built, genesis: core.chain.genesis, ethash: core.pow.name === 'ethash' };
    } finally {
      await sealer.close();
    }
  });
  const genesisFile = path.join(config.datadir, 'genesis.json');
  writeFileSync(genesisFile, JSON.stringify(genesisJson(genesis, chainId, head.ethash), null, 2) + '\n');
  process.stdout.write(`genesis ${bytesToHex(head.genesis.hash)} (written to ${genesisFile})\n`);
  process.stdout.write(`head ${describe(head.block)}\n`);
  if (chainId !== inv.config.chain.chainId) {
    process.stdout.write(`note: the script's genesis names chain id ${chainId}; start the node with --chain.chainId ${chainId}\n`);
  }
}
