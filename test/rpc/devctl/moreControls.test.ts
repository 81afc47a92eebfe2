// The controls of design.md §17 on a real node: gas limit and price, addBalance, ERC-20 deals
// and allowances, pool drops, auto-impersonation, time, mine_detailed, rollback, reset, node
// facts, logging. The chain they changed exports and re-imports to the same head, and a restart
// keeps the gas-limit target. A second node checks --compat anvil / hardhat.

import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { CLI, startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract, encodeCall, word } from '../../helpers/abi.js';
import { hexToBytes } from '../../../src/encoding/hex.js';
import { testDir } from '../../helpers/testDir.js';

const run = promisify(execFile);
const flags = ['--mining.mode', 'instant', '--minerthreads', '1'];
const WHO = '0x' + '61'.repeat(20);
const SPENDER = '0x' + '62'.repeat(20);
const receiptOf = (node: TestNode, hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);
const num = (hex: string) => BigInt(hex);

t.test('the controls of §17 on one chain, then export, import and restart', async (t) => {
  const base = testDir(t);
  const datadir = path.join(base, 'node');
  let node = await startNode(datadir, flags);
  t.teardown(() => node.stop());
  const head = async () => node.rpc('mc_getBlockByNumber', ['latest', false]);

  // block gas limit: the setter block carries it at once, later blocks keep it
  t.equal(await node.rpc('evm_setBlockGasLimit', ['0x1c9c380']), true);
  t.equal((await head()).gasLimit, '0x1c9c380');
  await node.rpc('evm_mine', []);
  t.equal((await head()).gasLimit, '0x1c9c380', 'the next block keeps it');
  t.equal((await node.call('anvil_setBlockGasLimit', ['0x10'])).error?.code, -32602, 'below the minimum');

  // minimum gas price of the pool
  t.equal(await node.rpc('anvil_setMinGasPrice', ['0x174876e800']), true); // 100 gwei
  const cheap = await node.call('mc_sendTransaction', [{ from: DEV[0].address, to: WHO, value: '0x1', gasPrice: '0x4a817c800' }]);
  t.match(cheap.error?.message, /underpriced/);
  await node.rpc('hardhat_setMinGasPrice', ['0x3b9aca00']);

  // addBalance: one setter block adding to what the head holds
  await node.rpc('anvil_setBalance', [WHO, '0x100']);
  const before = num((await head()).number);
  t.equal(await node.rpc('anvil_addBalance', [WHO, '0x23']), null);
  t.equal(await node.rpc('mc_getBalance', [WHO, 'latest']), '0x123');
  t.equal(num((await head()).number), before + 1n, 'one block');

  // ERC-20: deal and allowance find the token's slots by tracing its getters
  const deploy = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, data: contract('Token').bytecode, gas: '0x200000' }]);
  const token = (await receiptOf(node, deploy)).contractAddress as string;
  const balanceOf = () => node.rpc('mc_call', [{ to: token, data: encodeCall('balanceOf(address)', WHO) }, 'latest']);
  t.equal(await node.rpc('anvil_dealERC20', [WHO, token, '0x3e8']), null);
  t.equal(await balanceOf(), '0x' + word(1000));
  t.equal(await node.rpc('anvil_setERC20Allowance', [WHO, SPENDER, token, '0x4d']), null);
  t.equal(await node.rpc('mc_call', [{ to: token, data: encodeCall('allowance(address,address)', WHO, SPENDER) }, 'latest']), '0x' + word(77));
  t.equal(await balanceOf(), '0x' + word(1000), 'the allowance left the balance alone');
  t.equal(await node.rpc('anvil_setERC20Balance', [WHO, token, '0x7d0']), null, 'Anvil\'s other name');
  t.equal(await balanceOf(), '0x' + word(2000));
  const notToken = await node.call('anvil_dealERC20', [WHO, WHO, '0x1']);
  t.match(notToken.error?.message, /no storage slot/, 'an account without such a getter');

  // auto-impersonation: any address sends without its key, until switched off
  await node.rpc('anvil_addBalance', [WHO, '0xde0b6b3a7640000']);
  t.equal(await node.rpc('anvil_autoImpersonateAccount', [true]), null);
  const sent = await node.rpc('mc_sendTransaction', [{ from: WHO, to: SPENDER, value: '0x5', gas: '0x5208' }]);
  t.equal((await receiptOf(node, sent)).from, WHO);
  t.equal(await node.rpc('mc_getBalance', [SPENDER, 'latest']), '0x5');
  const unsigned = await node.rpc('eth_sendUnsignedTransaction', [{ from: WHO, to: SPENDER, value: '0x1', gas: '0x5208' }]);
  t.equal((await receiptOf(node, unsigned)).status, '0x1');
  await node.rpc('anvil_autoImpersonateAccount', [false]);
  t.match((await node.call('mc_sendTransaction', [{ from: WHO, to: SPENDER, value: '0x1' }])).error?.message, /authentication needed/);

  // pool drops
  await node.rpc('evm_setAutomine', [false]);
  const nonce0 = num(await node.rpc('mc_getTransactionCount', [DEV[0].address, 'pending']));
  for (const n of [0n, 1n]) await node.rpc('eth_sendRawTransaction', [rawTx(DEV[0].key, { nonce: nonce0 + n, to: hexToBytes(WHO), value: 1n }).raw]);
  const nonce1 = num(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'pending']));
  await node.rpc('eth_sendRawTransaction', [rawTx(DEV[1].key, { nonce: nonce1, to: hexToBytes(WHO), value: 1n }).raw]);
  t.equal((await node.rpc('txpool_status')).pending, '0x3');
  t.equal(await node.rpc('anvil_removePoolTransactions', [DEV[0].address]), null);
  t.same(Object.keys((await node.rpc('txpool_content')).pending).map((a) => a.toLowerCase()), [DEV[1].address]);
  t.equal(await node.rpc('anvil_dropAllTransactions', []), null);
  t.equal((await node.rpc('txpool_status')).pending, '0x0');
  await node.rpc('evm_setAutomine', [true]);

  // time: setTime moves the clock, an interval spaces blocks exactly
  const target = num((await head()).timestamp) + 100_000n;
  const moved = await node.rpc('evm_setTime', [Number(target)]);
  t.ok(moved > 90_000 && moved <= 100_000, `setTime returns how far the clock moved (${moved})`);
  await node.rpc('evm_mine', []);
  const afterSet = num((await head()).timestamp);
  t.ok(afterSet >= target && afterSet < target + 120n, 'the next block is at the new time');
  t.equal(await node.rpc('anvil_setBlockTimestampInterval', [100]), null);
  await node.rpc('anvil_mine', ['0x2']);
  const last = await head();
  const prev = await node.rpc('mc_getBlockByNumber', ['0x' + (num(last.number) - 1n).toString(16), false]);
  t.equal(num(last.timestamp) - num(prev.timestamp), 100n, 'blocks 100 s apart');
  t.equal(await node.rpc('anvil_removeBlockTimestampInterval', []), true);
  t.equal(await node.rpc('anvil_removeBlockTimestampInterval', []), false, 'none left to remove');

  // mine_detailed: the blocks with their transactions
  const mined = await node.rpc('evm_mine_detailed', []);
  t.equal(mined.length, 1);
  t.same(mined[0], await node.rpc('mc_getBlockByNumber', ['latest', true]));
  t.equal((await node.rpc('anvil_mine_detailed', [{ blocks: 2 }])).length, 2);

  // node facts
  const info = await node.rpc('anvil_nodeInfo', []);
  const latest = await head();
  t.equal(info.currentBlockNumber, latest.number);
  t.equal(info.currentBlockHash, latest.hash);
  t.equal(info.hardFork, 'Petersburg');
  t.equal(info.environment.chainId, 100);
  t.equal(info.environment.gasLimit, '0x1c9c380');
  const snapshot = await node.rpc('evm_snapshot', []);
  const meta = await node.rpc('hardhat_metadata', []);
  t.match(meta.clientVersion, /^Mcnode\//);
  t.equal(meta.chainId, 100);
  t.equal(meta.latestBlockNumber, Number(num(latest.number)));
  t.equal(meta.latestBlockHash, latest.hash);
  t.match(meta.instanceId, /^0x[0-9a-f]{64}$/);
  t.same(meta.snapshots[snapshot], [Number(num(latest.number)), latest.hash]);
  t.same(await node.rpc('anvil_metadata', []), meta, 'one implementation');
  t.equal(await node.rpc('anvil_getGenesisTime', []), Number(num((await node.rpc('mc_getBlockByNumber', ['earliest', false])).timestamp)));
  t.equal(await node.rpc('evm_setAccountNonce', [SPENDER, '0x2a']), true);
  t.equal(await node.rpc('mc_getTransactionCount', [SPENDER, 'latest']), '0x2a', 'setAccountNonce is setNonce');

  // logging: off quiets the info lines of sealed blocks
  t.equal(await node.rpc('anvil_setLoggingEnabled', [false]), null);
  const quietFrom = node.stderr().length;
  await node.rpc('evm_mine', []);
  t.notMatch(node.stderr().slice(quietFrom), /sealed block/);
  await node.rpc('hardhat_setLoggingEnabled', [true]);
  await node.rpc('evm_mine', []);
  await waitFor(async () => /sealed block/.test(node.stderr().slice(quietFrom)) || undefined, 'the sealed-block line');

  // rollback: the head goes back
  const tip = num((await head()).number);
  t.equal(await node.rpc('anvil_rollback', [2]), null);
  t.equal(num((await head()).number), tip - 2n);
  await node.rpc('anvil_rollback', []);
  t.equal(num((await head()).number), tip - 3n, 'one block by default');

  // everything above is history: export, import into a fresh datadir, same head
  const headBefore = await head();
  await node.stop();
  const file = path.join(base, 'chain.rlp');
  await run(process.execPath, [CLI, '--datadir', datadir, 'export', file], { timeout: 120_000 });
  const fresh = path.join(base, 'fresh');
  await run(process.execPath, [CLI, '--datadir', fresh, 'import', file], { timeout: 120_000 });
  const again = await startNode(fresh, flags);
  t.teardown(() => again.stop());
  t.same(await again.rpc('mc_getBlockByNumber', ['latest', false]), headBefore, 'the imported chain reaches the same head');
  await again.stop();

  // a restart keeps the gas-limit target
  node = await startNode(datadir, flags);
  await node.rpc('evm_mine', []);
  t.equal((await head()).gasLimit, '0x1c9c380', 'the target survives a restart');

  // reset: back to genesis, empty pool, no snapshots, the configured gas-limit target again
  await node.rpc('evm_setAutomine', [false]);
  await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: WHO, value: '0x1' }]);
  t.equal(await node.rpc('anvil_reset', []), null);
  t.equal(await node.rpc('mc_blockNumber', []), '0x0');
  t.equal((await node.rpc('txpool_status')).pending, '0x0');
  t.same((await node.rpc('anvil_metadata', [])).snapshots, {});
  t.equal(await node.rpc('mc_getBalance', [WHO, 'latest']), '0x0', 'genesis state');
  t.equal((await node.call('anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }])).error?.code, -32000, 'no fork mode here');
  await node.rpc('evm_mine', []);
  t.ok(num((await head()).gasLimit) < 0x1c9c380, 'blocks move toward the configured target again');
});

t.test('--compat anvil and hardhat, --auto-impersonate', async (t) => {
  const anvil = await startNode(testDir(t), [...flags, '--compat', 'anvil', '--auto-impersonate']);
  t.teardown(() => anvil.stop());
  t.match(await anvil.rpc('web3_clientVersion'), /^anvil\/Mcnode\/v/);
  t.match((await anvil.rpc('admin_nodeInfo').catch(() => anvil.ipcCall('admin_nodeInfo').then((r) => r.result))).name, /^Mcnode\//, 'admin_nodeInfo keeps the name');
  const who = '0x' + '63'.repeat(20);
  await anvil.rpc('anvil_setBalance', [who, '0xde0b6b3a7640000']);
  const sent = await anvil.rpc('mc_sendTransaction', [{ from: who, to: WHO, value: '0x7', gas: '0x5208' }]);
  t.equal((await receiptOf(anvil, sent)).from, who, '--auto-impersonate at start');

  // evm_setIntervalMining in seconds under anvil: one block a second, not one a millisecond
  await anvil.rpc('evm_setAutomine', [false]);
  const from = num(await anvil.rpc('mc_blockNumber'));
  t.equal(await anvil.rpc('anvil_getIntervalMining'), null, 'no interval yet');
  t.equal(await anvil.rpc('evm_setIntervalMining', [1]), true);
  t.equal(await anvil.rpc('anvil_getIntervalMining'), 1, 'read as 1 s');
  await waitFor(async () => num(await anvil.rpc('mc_blockNumber')) > from || undefined, 'an interval block');
  t.equal(await anvil.rpc('evm_setIntervalMining', [0]), true);
  t.equal(await anvil.rpc('anvil_getIntervalMining'), null);

  const hardhat = await startNode(testDir(t), [...flags, '--compat', 'hardhat']);
  t.teardown(() => hardhat.stop());
  t.match(await hardhat.rpc('web3_clientVersion'), /^HardhatNetwork\/Mcnode\/v/);
  t.equal((await hardhat.call('anvil_setIntervalMining', [2_147_484])).error?.code, -32602, 'anvil_setIntervalMining takes seconds everywhere');
  await hardhat.rpc('evm_setIntervalMining', [1500]);
  t.equal(await hardhat.rpc('anvil_getIntervalMining'), 1.5, 'evm_setIntervalMining in milliseconds otherwise');
  await hardhat.rpc('evm_setIntervalMining', [0]);
});
