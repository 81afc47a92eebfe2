#!/usr/bin/env node
// Command-line entry: parses flags and config, runs the node or a subcommand, and turns
// configuration problems into one clear message and a non-zero exit.

import { readFileSync } from 'node:fs';
import { loadInvocation, parseGenesis, type Invocation } from '../config/load.js';
import { initChain } from '../blockchain/init.js';
import { choosePow } from '../consensus/powNames.js';
import { helpText } from '../config/help.js';
import { ConfigError } from '../errors.js';
import { bytesToHex } from '../encoding/hex.js';
import { McNode, VERSION } from '../node/node.js';
import { accountCommand } from '../accounts/accountCommand.js';
import { clientVersion } from '../version.js';
import { exportCommand, fixtureCommand, importCommand } from './chainCommands.js';
import { capYoungGeneration, tuneHeapGrowth } from '../runtime/heapTuning.js';
import { announceStarted, codeCacheState } from '../runtime/codeCache.js';
import { createLogger } from '../log.js';

function banner(node: McNode): string {
  const { config, chain, endpoints } = node;
  const lines = [
    `mcnode ${VERSION} — ${clientVersion()}`,
    `chain id ${config.chain.chainId}, network id ${config.chain.networkId}, hardfork ${config.chain.hardfork}`,
    `genesis ${bytesToHex(chain.genesis.hash)}`,
    `head    #${chain.head.header.number} ${bytesToHex(chain.head.hash)}`,
    `datadir ${config.datadir}`,
    `mining  ${node.miner.currentMode} (period ${config.mining.period}s), coinbase ${bytesToHex(node.miner.coinbase)}`,
    `pow     ${node.pow?.describe() ?? config.chain.pow}`,
    endpoints.p2p ? `P2P     ${endpoints.p2p}` : 'P2P     disabled',
    endpoints.http ? `HTTP    http://${endpoints.http.host}:${endpoints.http.port} (namespaces: ${config.rpc.api.join(',')})` : 'HTTP    disabled',
    endpoints.ipc ? `IPC     ${endpoints.ipc}` : 'IPC     disabled',
    ...(endpoints.ws ? [`WS      ws://${endpoints.ws.host}:${endpoints.ws.port} (namespaces: ${config.ws.api.join(',')})`] : []),
    endpoints.scs ? `SCS     http://${endpoints.scs.host}:${endpoints.scs.port}` : 'SCS     disabled',
    ...(endpoints.metrics ? [`metrics http://${endpoints.metrics.host}:${endpoints.metrics.port}/metrics`] : []),
  ];
  if (node.devAccounts.length) {
    lines.push('', `Dev accounts (${node.devAccounts.length}), unlocked, funded in genesis.`);
    lines.push('WARNING: these keys are public test keys — never use them on a real network.');
    node.devAccounts.forEach((a, i) => lines.push(`  (${i}) ${bytesToHex(a.address)}  key ${bytesToHex(a.privateKey)}`));
  }
  return lines.join('\n') + '\n';
}

async function run(inv: Invocation): Promise<void> {
  // The banner is written before the first call is answered (stdout to a pipe or file is synchronous).
  const node = await McNode.start(inv.config, undefined, { beforeServing: (started) => process.stdout.write(banner(started)) });
  // V8 refuses code caches made under other flags, Node's own for its built-in modules as well as
  // the bundle's: the heap flags are set once start-up has loaded what it needs and the bundle's
  // cache (when it was not used) is written.
  setImmediate(() => {
    announceStarted();
    tuneHeapGrowth();
    capYoungGeneration();
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    node.log.info('shutting down', { signal });
    try {
      await node.stop();
      process.exit(0);
    } catch (err) {
      node.log.error('shutdown failed', { error: (err as Error).message });
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function init(inv: Invocation): Promise<void> {
  const file = inv.args[0];
  if (!file) throw new ConfigError('usage: mcnode init <genesis.json> [--datadir <dir>]');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read genesis file ${file}: ${(err as Error).message}`);
  }
  const genesis = parseGenesis(json, file);
  const chainId = genesis.chainId ?? inv.config.chain.chainId;
  const pow = choosePow(inv.config.chain.pow, genesis.ethash);
  const block = await initChain(inv.config.datadir, genesis, chainId, inv.config.chain.hardfork, { pow, classicTxBlock: genesis.classicTxBlock });
  process.stdout.write(`wrote genesis block ${bytesToHex(block.hash)} to ${inv.config.datadir}\n`);
  if (chainId !== inv.config.chain.chainId) {
    process.stdout.write(`note: the genesis file names chain id ${chainId}; start the node with --chain.chainId ${chainId}\n`);
  }
  if (pow === 'ethash') process.stdout.write('the chain seals with Ethash; the datadir keeps that rule\n');
}

async function main(argv: string[]): Promise<void> {
  const inv = loadInvocation(argv, process.env);
  createLogger(inv.config.verbosity).debug('code cache', { state: codeCacheState() ?? 'none: not the bundle' });
  switch (inv.command) {
    case 'help':
      process.stdout.write(helpText() + '\n');
      return;
    case 'version':
      process.stdout.write(`mcnode ${VERSION}\n${clientVersion()}\n`);
      return;
    case 'run':
      return run(inv);
    case 'account':
      return accountCommand(inv.args, inv.config);
    case 'init':
      return init(inv);
    case 'export':
      return exportCommand(inv);
    case 'import':
      return importCommand(inv);
    case 'fixture':
      return fixtureCommand(inv);
    default:
      throw new ConfigError(`unknown command ${inv.command}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`mcnode: ${err.message}\n`);
  } else {
    process.stderr.write(`mcnode: fatal: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
