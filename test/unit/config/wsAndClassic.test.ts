// The `ws` section and its geth flag names, and genesis `config.classicTxBlock`.

import t from 'tap';
import path from 'node:path';
import { loadInvocation, parseGenesis } from '../../../src/config/load.js';
import { testDir } from '../../helpers/testDir.js';

const load = (...argv: string[]) => loadInvocation(argv, {}).config;

t.test('ws: off by default; geth flag names set it', async (t) => {
  t.same(load().ws, { enabled: false, addr: '127.0.0.1', port: 8546, api: ['libx', 'mc', 'net', 'vnode', 'txpool', 'miner', 'rpc'], origins: [] });
  const c = load('--ws', '--wsaddr', '0.0.0.0', '--wsport', '9546', '--wsapi', 'mc,net', '--wsorigins', 'http://a.example,http://b.example');
  t.same(c.ws, { enabled: true, addr: '0.0.0.0', port: 9546, api: ['mc', 'net'], origins: ['http://a.example', 'http://b.example'] });
  t.equal(loadInvocation([], { MCNODE_WSPORT: '7000' }).config.ws.port, 7000);
  t.throws(() => load('--ws', '--wsport', '8545'), { message: /ws\.port: 8545 \(expected a port different from rpc\.port/ });
  t.throws(() => load('--wsapi', 'mc,nope'), { message: /ws\.api/ });
});

t.test('classicTxBlock: devnet default 0; a genesis config without it: never', async (t) => {
  t.equal(load().genesis.classicTxBlock, 0n);
  t.equal(parseGenesis({ config: { chainId: 100, classicTxBlock: '0x10' } }, 'g.json').classicTxBlock, 16n);
  t.equal(parseGenesis({ config: { chainId: 100 } }, 'g.json').classicTxBlock, undefined);
  t.equal(parseGenesis({}, 'g.json').classicTxBlock, undefined);
  t.throws(() => parseGenesis({ config: { classicTxBlock: -1 } }, 'g.json'), { message: /config\.classicTxBlock/ });
  const dir = testDir(t, { 'c.json': JSON.stringify({ genesis: { config: { chainId: 100 } } }), 'd.json': JSON.stringify({ genesis: { config: { classicTxBlock: 5 } } }) });
  t.equal(load('--config', path.join(dir, 'c.json')).genesis.classicTxBlock, undefined);
  t.equal(load('--config', path.join(dir, 'd.json')).genesis.classicTxBlock, 5n);
});
