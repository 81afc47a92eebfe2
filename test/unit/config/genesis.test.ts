import t from 'tap';
import path from 'node:path';
import { parseGenesis, loadInvocation } from '../../../src/config/load.js';
import { chainPow } from '../../../src/node/chainCore.js';
import { testDir } from '../../helpers/testDir.js';

const hex = (b: Uint8Array | undefined) => (b === undefined ? undefined : '0x' + Buffer.from(b).toString('hex'));
const A = 'ab'.repeat(20);
const B = 'CD'.repeat(20);

t.test('a real-node genesis with hex and decimal numbers', async (t) => {
  const g = parseGenesis({
    config: { chainId: 101, homesteadBlock: 0, eip155Block: 0 },
    nonce: '0x0000000000000042',
    timestamp: 1700000000,
    extraData: '0x1234',
    gasLimit: '9000000',
    difficulty: '0x20000',
    mixHash: '0x' + '00'.repeat(31) + '01',
    coinbase: '0x' + '99'.repeat(20),
    number: '0x0',
    gasUsed: 0,
    parentHash: '0x' + '00'.repeat(32),
    alloc: {
      [A]: { balance: '1000000000000000000' },
      ['0x' + B]: { balance: '0x10', nonce: '5', code: '0x6000', storage: { '0x01': '0x02', '3': '4' } },
    },
  }, 'genesis.json');
  t.equal(g.chainId, 101n);
  t.equal(g.nonce, 0x42n);
  t.equal(g.timestamp, 1_700_000_000n);
  t.equal(hex(g.extraData), '0x1234');
  t.equal(g.gasLimit, 9_000_000n);
  t.equal(g.difficulty, 131072n);
  t.equal(hex(g.mixHash), '0x' + '00'.repeat(31) + '01');
  t.equal(hex(g.coinbase), '0x' + '99'.repeat(20));
  t.same([...g.alloc.keys()], ['0x' + A, '0x' + B.toLowerCase()], 'keys are lower-case with 0x, whatever was written');
  t.same(g.alloc.get('0x' + A), { balance: 10n ** 18n });
  const b = g.alloc.get('0x' + B.toLowerCase())!;
  t.equal(b.balance, 16n);
  t.equal(b.nonce, 5n);
  t.equal(hex(b.code), '0x6000');
  t.equal(b.storage!.size, 2);
  t.equal(b.storage!.get(1n), 2n, 'hex slot and value');
  t.equal(b.storage!.get(3n), 4n, 'decimal slot and value');
});

t.test('missing fields take the devnet defaults; no config means no chainId', async (t) => {
  const g = parseGenesis({ alloc: {} }, 'g.json');
  t.equal(g.chainId, undefined);
  t.equal(g.gasLimit, 9_000_000n);
  t.equal(g.difficulty, 0x200n);
  t.equal(g.nonce, 0x42n);
  t.equal(g.coinbase.length, 20);
  t.equal(g.mixHash.length, 32);
  t.equal(g.alloc.size, 0);
  t.equal(parseGenesis({ alloc: { [A]: {} } }, 'g.json').alloc.get('0x' + A)?.balance, 0n, 'a missing balance is 0');
  t.equal(parseGenesis({ alloc: { [A]: { balance: '1', privateKey: '0x01' } } }, 'g.json').alloc.size, 1, 'geth test genesis privateKey is ignored');
});

t.test('bad genesis files are refused naming the field and the file', async (t) => {
  const rejects = (json: unknown, message: RegExp) => t.throws(() => parseGenesis(json, 'gen.json'), { name: 'ConfigError', message });
  rejects([], /invalid genesis in gen\.json: expected a JSON object/);
  rejects({ gaslimit: '0x1' }, /unknown genesis field gaslimit in gen\.json \(did you mean gasLimit\?\)/);
  rejects({ gasLimit: 'lots' }, /invalid genesis value for gasLimit in gen\.json: "lots" \(expected an integer from 5000/);
  rejects({ number: 1 }, /invalid genesis value for number in gen\.json: 1 \(expected 0 \(a genesis block is block 0\)\)/);
  rejects({ gasUsed: '0x5' }, /gasUsed in gen\.json: "0x5"/);
  rejects({ parentHash: '0x' + '11'.repeat(32) }, /parentHash in gen\.json: .*expected the zero hash/);
  rejects({ mixHash: '0x00' }, /mixHash in gen\.json: "0x00" \(expected 32-byte hex data\)/);
  rejects({ config: 5 }, /config in gen\.json: 5 \(expected an object/);
  rejects({ config: { chainId: 'x' } }, /config\.chainId in gen\.json: "x"/);
  rejects({ alloc: { '0x12': { balance: '1' } } }, /alloc\.0x12 in gen\.json: "0x12" \(expected a 20-byte hex address\)/);
  rejects({ alloc: { [A]: { balance: '-1' } } }, new RegExp(`alloc\\.${A}\\.balance in gen\\.json: "-1" \\(expected an integer from 0 to 2\\^256-1`));
  rejects({ alloc: { [A]: { balanse: '1' } } }, new RegExp(`alloc\\.${A}\\.balanse in gen\\.json: "balanse" \\(expected one of balance, code, storage, nonce\\)`));
  rejects({ alloc: { [A]: { balance: '1', code: '0x123' } } }, /code in gen\.json: "0x123" \(expected hex data/);
  rejects({ alloc: { [A]: { balance: '1', storage: { zz: '1' } } } }, /storage\.zz in gen\.json: "zz"/);
  rejects({ alloc: { [A]: { balance: '1' }, ['0x' + A.toUpperCase()]: { balance: '2' } } }, /expected each address once/);
  rejects({ alloc: { [A]: 5 } }, new RegExp(`alloc\\.${A} in gen\\.json: 5 \\(expected an object`));
});

t.test('the config genesis section uses the same format', async (t) => {
  const dir = testDir(t, {
    'c.json': JSON.stringify({
      chain: { chainId: 101 },
      genesis: { config: { chainId: '101' }, gasLimit: 8000000, alloc: { [A]: { balance: '0x3e8' } } },
    }),
  });
  const c = loadInvocation(['--config', path.join(dir, 'c.json')], {}).config;
  t.equal(c.genesis.chainId, 101n);
  t.equal(c.genesis.gasLimit, 8_000_000n);
  t.equal(c.genesis.alloc.get('0x' + A)?.balance, 1000n);
  t.equal(c.genesis.difficulty, 0x200n);
  t.throws(() => loadInvocation(['--genesis.alloc', JSON.stringify({ [A]: { balance: 'x' } })], {}), {
    message: new RegExp(`^invalid config value for genesis\\.alloc\\.${A}\\.balance: "x" .*; set by --genesis\\.alloc\\)$`),
  });
});

t.test('config.devControls: devnet on, testnet preset off, genesis files off unless they say so', async (t) => {
  t.equal(loadInvocation([], {}).config.genesis.devControls, true, 'the devnet defaults');
  t.equal(loadInvocation(['--config', 'testnet'], {}).config.genesis.devControls, false, 'the testnet preset');
  t.equal(parseGenesis({ config: { chainId: 100 } }, 'genesis.json').devControls, false, 'a real node\'s genesis');
  t.equal(parseGenesis({ config: { devControls: true } }, 'genesis.json').devControls, true);
  t.throws(() => parseGenesis({ config: { devControls: 2 } }, 'genesis.json'), /invalid genesis value for config.devControls in genesis.json: 2 \(expected true or false\)/);
});

t.test('config.ethash selects Ethash (geth\'s genesis convention)', async (t) => {
  t.equal(parseGenesis({ config: { chainId: 100, ethash: {} } }, 'g.json').ethash, true);
  t.equal(parseGenesis({ config: { chainId: 100 } }, 'g.json').ethash, undefined, 'no ethash member: keccak-pow');
  t.throws(() => parseGenesis({ config: { ethash: true } }, 'g.json'), /invalid genesis value for config\.ethash in g\.json: true \(expected an object/);
});

t.test('a config file whose genesis has config.ethash runs Ethash', async (t) => {
  const dir = testDir(t, { 'c.json': JSON.stringify({ genesis: { config: { chainId: 100, ethash: {} } } }) });
  const c = loadInvocation(['--config', path.join(dir, 'c.json')], {}).config;
  t.equal(c.genesis.ethash, true);
  t.equal(chainPow(c), 'ethash', 'selected by the genesis');
  const plain = loadInvocation([], {}).config;
  t.equal(chainPow(plain), 'keccak-pow', 'the devnet default');
  t.equal(chainPow(loadInvocation(['--chain.pow', 'ethash'], {}).config), 'ethash', 'selected by the option');
});
