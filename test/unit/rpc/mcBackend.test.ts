// The mc_* handlers in process against a fake McBackend (rpc/backend.ts): what each handler asks
// the backend for, and how it encodes the answer and the backend's errors, without a node. The wire
// through real transports is tested against running nodes elsewhere.

import t from 'tap';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import type { McBackend } from '../../../src/rpc/backend.js';
import { buildMethodTable } from '../../../src/rpc/modules/index.js';
import { blockMethods } from '../../../src/rpc/modules/mc/blocks.js';
import { infoMethods } from '../../../src/rpc/modules/mc/info.js';
import { stateMethods } from '../../../src/rpc/modules/mc/state.js';
import { transactionMethods } from '../../../src/rpc/modules/mc/transactions.js';
import type { TxRequest } from '../../../src/accounts/signer.js';
import type { BlockTag } from '../../../src/encoding/hex.js';
import { DecodeError, notFound } from '../../../src/errors.js';

const ADDRESS = '0x' + '11'.repeat(20);

/** A backend whose every method throws unless the test gives it; `seen` records the calls made. */
function fakeBackend(parts: Partial<McBackend>): { backend: McBackend; seen: string[] } {
  const seen: string[] = [];
  const backend = new Proxy({ chainId: 100n, ...parts } as McBackend, {
    get(target, name) {
      const value = (target as unknown as Record<string | symbol, unknown>)[name];
      if (typeof value !== 'function') {
        if (value === undefined && typeof name === 'string') throw new Error(`the handler asked for ${name}, which this test did not expect`);
        return value;
      }
      return (...args: unknown[]) => {
        seen.push(String(name));
        return (value as (...a: unknown[]) => unknown)(...args);
      };
    },
  });
  return { backend, seen };
}

async function call(backend: McBackend, method: string, params: unknown[]) {
  const dispatcher = new Dispatcher({
    methods: buildMethodTable(blockMethods(backend), stateMethods(backend), transactionMethods(backend), infoMethods(backend)),
  });
  const reply = await dispatcher.handle(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), { transport: 'http' });
  return JSON.parse(reply!);
}

t.test('reads: the backend answers, the handler encodes', async (t) => {
  const tags: BlockTag[] = [];
  const { backend, seen } = fakeBackend({
    head: () => ({ header: { number: 0x1234n } }) as ReturnType<McBackend['head']>,
    stateAt: async (tag) => {
      tags.push(tag);
      return {
        header: {} as never,
        getAccount: async () => ({ nonce: 7n, balance: 10n ** 18n }),
        getCode: async () => new Uint8Array([0x60, 0x00]),
        getStorage: async () => new Uint8Array(32).fill(1),
      };
    },
    accounts: () => [new Uint8Array(20).fill(0xaa)],
    gasPrice: () => 20_000_000_000n,
    syncProgress: () => ({ startingBlock: 1n, currentBlock: 2n, highestBlock: 3n }),
  });
  t.equal((await call(backend, 'mc_blockNumber', [])).result, '0x1234');
  t.equal((await call(backend, 'eth_getBalance', [ADDRESS, 'latest'])).result, '0xde0b6b3a7640000');
  t.equal((await call(backend, 'mc_getTransactionCount', [ADDRESS, '0x10'])).result, '0x7');
  t.equal((await call(backend, 'mc_getCode', [ADDRESS])).result, '0x6000', 'the tag defaults to latest');
  t.equal((await call(backend, 'mc_getStorageAt', [ADDRESS, '0x0', 'pending'])).result, '0x' + '01'.repeat(32));
  t.same(tags, ['latest', 0x10n, 'latest', 'pending'], 'each read asked for the state its tag names');
  t.same((await call(backend, 'mc_accounts', [])).result, ['0x' + 'aa'.repeat(20)]);
  t.equal((await call(backend, 'mc_chainId', [])).result, '0x64');
  t.equal((await call(backend, 'mc_gasPrice', [])).result, '0x4a817c800');
  t.same((await call(backend, 'mc_syncing', [])).result, { startingBlock: '0x1', currentBlock: '0x2', highestBlock: '0x3' });
  t.same(seen, ['head', 'stateAt', 'stateAt', 'stateAt', 'stateAt', 'accounts', 'gasPrice', 'syncProgress']);
});

t.test('bad params never reach the backend', async (t) => {
  const { backend, seen } = fakeBackend({});
  const reply = await call(backend, 'mc_getBalance', ['0x1234', 'latest']);
  t.equal(reply.error.code, -32602);
  t.match(reply.error.message, /^invalid argument 0: /);
  t.same(seen, []);
});

t.test('backend errors map to JSON-RPC errors', async (t) => {
  const { backend } = fakeBackend({
    decodeRawTransaction: () => {
      throw new DecodeError('rlp: expected a list');
    },
    stateAt: async () => {
      throw notFound('header not found');
    },
  });
  const raw = await call(backend, 'mc_sendRawTransaction', ['0xc0']);
  t.same(raw.error, { code: -32602, message: 'invalid argument 0: rlp: expected a list' }, 'a decode failure names the argument');
  const missing = await call(backend, 'mc_getBalance', [ADDRESS, '0xffff']);
  t.equal(missing.error.code, -32000);
  t.equal(missing.error.message, 'header not found');
});

t.test('calls and sends hand the decoded request to the backend', async (t) => {
  const requests: TxRequest[] = [];
  const { backend } = fakeBackend({
    call: async (req, tag) => {
      requests.push(req);
      t.equal(tag, 'latest');
      return new Uint8Array([0xbe, 0xef]);
    },
    estimateGas: async (req, tag) => {
      requests.push(req);
      t.equal(tag, 'pending');
      return 21_000n;
    },
    sendTransaction: async (req) => {
      requests.push(req);
      return { hash: new Uint8Array(32).fill(0xcd) } as Awaited<ReturnType<McBackend['sendTransaction']>>;
    },
  });
  t.equal((await call(backend, 'eth_call', [{ to: ADDRESS, data: '0x01' }])).result, '0xbeef');
  t.equal((await call(backend, 'mc_estimateGas', [{ to: ADDRESS, value: '0x5' }, 'pending'])).result, '0x5208');
  t.equal((await call(backend, 'mc_sendTransaction', [{ from: ADDRESS, to: ADDRESS, shardingFlag: '0x0' }])).result, '0x' + 'cd'.repeat(32));
  t.same(requests.map((r) => [r.to && Buffer.from(r.to).toString('hex'), r.data && Buffer.from(r.data).toString('hex'), r.value]), [
    ['11'.repeat(20), '01', undefined],
    ['11'.repeat(20), undefined, 5n],
    ['11'.repeat(20), undefined, undefined],
  ]);
});
