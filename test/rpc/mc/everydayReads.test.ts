// The reads and signing methods of docs/methods.md#more-reads against a real node: headers,
// block receipts, raw transactions, account info, sender and nonce, the pool's transactions,
// EIP-712 signatures (checked with ethers), eth_signTransaction and eth_sendRawTransactionSync.

import t from 'tap';
import { TypedDataEncoder, verifyTypedData } from 'ethers';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { DEV, rawTx } from '../../helpers/accounts.js';
import { contract } from '../../helpers/abi.js';
import { asTypedData, typedDataDigest } from '../../../src/accounts/typedData.js';
import { bytesToHex, hexToBytes } from '../../../src/encoding/hex.js';
import { keccak256 } from '../../../src/encoding/bytes.js';
import { testDir } from '../../helpers/testDir.js';

let node: TestNode;
t.before(async () => {
  node = await startNode(testDir(t), ['--mining.mode', 'instant', '--minerthreads', '1']);
});
t.teardown(() => node.stop());

const TO = '0x' + '5a'.repeat(20);
const receiptOf = (hash: string) => waitFor(() => node.rpc('mc_getTransactionReceipt', [hash]), `receipt ${hash}`);

t.test('headers, block receipts and raw transactions', async (t) => {
  const nonce = BigInt(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'latest']));
  const sent = rawTx(DEV[1].key, { nonce, to: hexToBytes(TO), value: 5n, gas: 21_000n + 1_000n });
  t.equal(await node.rpc('eth_sendRawTransaction', [sent.raw]), sent.hash);
  const receipt = await receiptOf(sent.hash);
  const block = await node.rpc('eth_getBlockByNumber', [receipt.blockNumber, false]);

  const header = await node.rpc('eth_getHeaderByNumber', [receipt.blockNumber]);
  t.equal(header.hash, block.hash);
  t.equal(header.stateRoot, block.stateRoot);
  t.equal(header.transactions, undefined, 'a header carries no transactions');
  t.same(await node.rpc('eth_getHeaderByHash', [block.hash]), header);
  t.equal(await node.rpc('eth_getHeaderByHash', ['0x' + '00'.repeat(32)]), null);
  t.equal(await node.rpc('eth_getHeaderByNumber', ['0xffffff']), null);
  const pendingHeader = await node.rpc('eth_getHeaderByNumber', ['pending']);
  t.equal(pendingHeader.hash, null);
  t.equal(pendingHeader.parentHash, (await node.rpc('eth_getBlockByNumber', ['latest', false])).hash);

  const receipts = await node.rpc('eth_getBlockReceipts', [receipt.blockNumber]);
  t.same(receipts, [receipt], 'the block receipts equal the receipt read alone');
  t.same(await node.rpc('eth_getBlockReceipts', [block.hash]), receipts, 'by hash');
  t.same(await node.rpc('eth_getBlockReceipts', [{ blockHash: block.hash }]), receipts, 'by {blockHash}');
  t.equal(await node.rpc('eth_getBlockReceipts', ['0xffffff']), null);
  t.same(await node.rpc('mc_getBlockReceipts', ['earliest']), [], 'genesis has none');

  t.equal(await node.rpc('eth_getRawTransactionByHash', [sent.hash]), sent.raw);
  t.equal(await node.rpc('eth_getRawTransactionByBlockHashAndIndex', [block.hash, '0x0']), sent.raw);
  t.equal(await node.rpc('eth_getRawTransactionByBlockNumberAndIndex', [receipt.blockNumber, '0x0']), sent.raw);
  t.equal(await node.rpc('eth_getRawTransactionByBlockNumberAndIndex', [receipt.blockNumber, '0x1']), null);
  t.equal(await node.rpc('eth_getRawTransactionByHash', ['0x' + '11'.repeat(32)]), null);
});

t.test('account info and the transaction by sender and nonce', async (t) => {
  const code = contract('Store').deployed;
  t.equal(await node.rpc('anvil_setCode', [TO, code]), true);
  const info = await node.rpc('eth_getAccountInfo', [TO, 'latest']);
  t.same(info, {
    balance: await node.rpc('mc_getBalance', [TO, 'latest']),
    nonce: '0x0',
    code,
  });
  t.same(await node.rpc('eth_getAccountInfo', ['0x' + '77'.repeat(20)]), { balance: '0x0', nonce: '0x0', code: '0x' });
  const account = await node.rpc('eth_getAccount', [TO, 'latest']);
  t.equal(account.codeHash, bytesToHex(keccak256(hexToBytes(code))), 'geth\'s eth_getAccount: the code hash');
  t.equal(account.balance, info.balance);
  t.same(await node.rpc('eth_getAccount', ['0x' + '77'.repeat(20), 'latest']), {
    nonce: '0x0', balance: '0x0',
    storageRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    codeHash: '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
  }, 'an absent account: the empty roots');
  t.same(await node.rpc('eth_requestAccounts', []), await node.rpc('eth_accounts', []));
  t.equal(await node.rpc('eth_networkId', []), await node.rpc('net_version', []));

  // three transactions from DEV[2] in three blocks, then look each up by nonce
  const hashes: string[] = [];
  for (let i = 0; i < 3; i++) {
    const hash = await node.rpc('mc_sendTransaction', [{ from: DEV[2].address, to: TO, value: '0x1' }]);
    await receiptOf(hash);
    hashes.push(hash);
    await node.rpc('evm_mine', []); // blocks in between, so the search has heights to skip
  }
  for (const [nonce, hash] of hashes.entries()) {
    const tx = await node.rpc('eth_getTransactionBySenderAndNonce', [DEV[2].address, '0x' + nonce.toString(16)]);
    t.equal(tx?.hash, hash, `nonce ${nonce}`);
    t.same(tx, await node.rpc('eth_getTransactionByHash', [hash]));
  }
  t.equal(await node.rpc('eth_getTransactionBySenderAndNonce', [DEV[2].address, '0x3']), null, 'not sent yet');
});

t.test('the pool: eth_pendingTransactions and txpool_contentFrom', async (t) => {
  t.equal(await node.rpc('evm_setAutomine', [false]), true);
  t.teardown(() => node.rpc('evm_setAutomine', [true]));
  const nonce = BigInt(await node.rpc('mc_getTransactionCount', [DEV[0].address, 'pending']));
  const a = await node.rpc('mc_sendTransaction', [{ from: DEV[0].address, to: TO, value: '0x2' }]);
  const gap = rawTx(DEV[0].key, { nonce: nonce + 5n, to: hexToBytes(TO), value: 3n });
  await node.rpc('eth_sendRawTransaction', [gap.raw]);

  const pending = await node.rpc('eth_pendingTransactions', []);
  t.same(pending.map((tx: { hash: string }) => tx.hash).sort(), [a, gap.hash].sort(), 'pending and queued');
  const content = await node.rpc('txpool_contentFrom', [DEV[0].address]);
  t.same(Object.keys(content.pending), [nonce.toString()]);
  t.equal(content.pending[nonce.toString()].hash, a);
  t.same(Object.keys(content.queued), [(nonce + 5n).toString()]);
  t.same(await node.rpc('txpool_contentFrom', [TO]), { pending: {}, queued: {} });
  const found = await node.rpc('eth_getTransactionBySenderAndNonce', [DEV[0].address, '0x' + nonce.toString(16)]);
  t.equal(found.hash, a, 'a pool transaction by sender and nonce');
  t.equal(found.blockHash, null);
  t.equal(await node.rpc('anvil_dropTransaction', [a]), true);
  t.equal(await node.rpc('anvil_dropTransaction', [gap.hash]), true);
  t.same(await node.rpc('eth_pendingTransactions', []), []);
});

t.test('EIP-712: eth_signTypedData_v4 signs what ethers verifies', async (t) => {
  const doc = {
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }],
      Person: [{ name: 'name', type: 'string' }, { name: 'wallets', type: 'address[]' }],
      Mail: [{ name: 'from', type: 'Person' }, { name: 'to', type: 'Person[]' }, { name: 'contents', type: 'string' }, { name: 'tag', type: 'bytes4' }, { name: 'amount', type: 'int64' }],
    },
    primaryType: 'Mail',
    domain: { name: 'Ether Mail', version: '1', chainId: 100, verifyingContract: '0xcccccccccccccccccccccccccccccccccccccccc' },
    message: {
      from: { name: 'Cow', wallets: ['0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826', '0xdeaddeaddeaddeaddeaddeaddeaddeaddeaddead'] },
      to: [{ name: 'Bob', wallets: ['0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'] }],
      contents: 'Hello, Bob!',
      tag: '0x01020304',
      amount: -42,
    },
  };
  const { EIP712Domain: _, ...types } = doc.types;
  t.equal(bytesToHex(typedDataDigest(asTypedData(doc))), TypedDataEncoder.hash(doc.domain, types, doc.message), 'the digest equals ethers\'');
  for (const name of ['eth_signTypedData_v4', 'eth_signTypedData_v3', 'eth_signTypedData']) {
    const signature = await node.rpc(name, [DEV[0].address, doc]);
    t.equal(verifyTypedData(doc.domain, types, doc.message, signature).toLowerCase(), DEV[0].address, name);
  }
  t.equal(await node.rpc('eth_signTypedData_v4', [DEV[0].address, JSON.stringify(doc)]), await node.rpc('eth_signTypedData_v4', [DEV[0].address, doc]), 'JSON text');
  const bad = await node.call('eth_signTypedData_v4', [DEV[0].address, { ...doc, primaryType: 'Nope' }]);
  t.equal(bad.error?.code, -32602);
  t.match(bad.error?.message, /invalid argument 1: typed data: unknown type Nope/);
  const locked = await node.call('eth_signTypedData_v4', ['0x' + '99'.repeat(20), doc]);
  t.match(locked.error?.message, /authentication needed/);
});

t.test('eth_signTransaction signs without sending; eth_sendRawTransactionSync answers with the receipt', async (t) => {
  const count = await node.rpc('mc_getTransactionCount', [DEV[1].address, 'pending']);
  const signed = await node.rpc('eth_signTransaction', [{ from: DEV[1].address, to: '0x' + '5b'.repeat(20), value: '0x9', gas: '0x5dc0', gasPrice: '0x4a817c800' }]);
  t.equal(signed.tx.nonce, count);
  t.equal(signed.tx.from, DEV[1].address);
  t.equal(signed.tx.hash, bytesToHex(keccak256(hexToBytes(signed.raw))), 'tx.hash is the hash of raw');
  t.equal(await node.rpc('mc_getTransactionCount', [DEV[1].address, 'pending']), count, 'nothing was sent');
  t.equal(await node.rpc('eth_getTransactionByHash', [signed.tx.hash]), null);

  const receipt = await node.rpc('eth_sendRawTransactionSync', [signed.raw]);
  t.equal(receipt.transactionHash, signed.tx.hash);
  t.equal(receipt.status, '0x1');
  t.same(receipt, await node.rpc('eth_getTransactionReceipt', [signed.tx.hash]), 'the receipt as stored');
  const viaSend = await node.rpc('eth_sendTransactionSync', [{ from: DEV[1].address, to: '0x' + '5b'.repeat(20), value: '0x3' }]);
  t.equal(viaSend.status, '0x1');
  t.same(viaSend, await node.rpc('eth_getTransactionReceipt', [viaSend.transactionHash]), 'eth_sendTransactionSync: the receipt');

  // automine off: the receipt does not come within the timeout → code 4 with the hash in data
  await node.rpc('evm_setAutomine', [false]);
  t.teardown(() => node.rpc('evm_setAutomine', [true]));
  const next = rawTx(DEV[1].key, { nonce: BigInt(count) + 2n, to: hexToBytes(TO), value: 1n });
  const late = await node.call('eth_sendRawTransactionSync', [next.raw, '0xc8']);
  t.equal(late.error?.code, 4);
  t.equal(late.error?.data, next.hash);
  t.match(late.error?.message, /not mined within 200 ms/);
  t.equal((await node.call('eth_sendRawTransactionSync', [next.raw, 60_001])).error?.code, -32602, 'a timeout above the bound');
});
