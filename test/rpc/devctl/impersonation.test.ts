// Impersonation on a real node: a send from an impersonated address needs no key, the address
// stays impersonated across a restart (it is stored in the datadir) until stopped.

import t from 'tap';
import { startNode, waitFor, type TestNode } from '../../helpers/node.js';
import { testDir } from '../../helpers/testDir.js';

const flags = ['--mining.mode', 'instant', '--minerthreads', '1'];
const WHALE = '0x00000000000000000000000000000000000b0b0b';
const TO = '0x00000000000000000000000000000000000c0c0c';

t.test('impersonation lasts across a restart until stopped', async (t) => {
  const datadir = testDir(t);
  let node: TestNode = await startNode(datadir, flags);
  t.teardown(() => node.stop());
  const send = (value: string) => node.call('mc_sendTransaction', [{ from: WHALE, to: TO, value, gas: '0x5208' }]);

  t.match((await send('0x1')).error?.message, /authentication needed|unknown account/, 'no key and not impersonated: refused');
  t.equal(await node.rpc('anvil_setBalance', [WHALE, '0xde0b6b3a7640000']), true);
  t.equal(await node.rpc('anvil_impersonateAccount', [WHALE]), true);
  const first = await send('0x10');
  t.notOk(first.error, JSON.stringify(first.error));
  const receipt = await waitFor(() => node.rpc('mc_getTransactionReceipt', [first.result]), 'receipt');
  t.equal(receipt.from, WHALE);
  t.equal(await node.rpc('mc_getBalance', [TO, 'latest']), '0x10');

  await node.stop();
  node = await startNode(datadir, flags);
  const second = await send('0x20');
  t.notOk(second.error, 'still impersonated after the restart');
  await waitFor(() => node.rpc('mc_getTransactionReceipt', [second.result]), 'receipt');
  t.equal(await node.rpc('mc_getBalance', [TO, 'latest']), '0x30');

  t.equal(await node.rpc('anvil_stopImpersonatingAccount', [WHALE]), true);
  await node.stop();
  node = await startNode(datadir, flags);
  t.ok((await send('0x1')).error, 'stopped before the restart: refused after it');
});
