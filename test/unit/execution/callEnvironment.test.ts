import t from 'tap';
import { asm } from '../../helpers/evmAsm.js';
import { CALLER, COINBASE, addr, buildState, headerFor, hexAddress, pairFor } from './fastCall/harness.js';

// The block a call runs on, as both engines see it: COINBASE is that block's miner (block 0's is
// the zero address; the pending block's is the node's coinbase, set by the miner that builds it).

const READER = 0xc0de03n;

t.test('COINBASE is the miner of the block the call runs on, on both engines', async (t) => {
  const { sm, root } = await buildState(new Map([[READER, asm('COINBASE PUSH 0 MSTORE PUSH 32 PUSH 0 RETURN')]]));
  const pair = pairFor('petersburg', sm);
  const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
  for (const [engine, ex] of [['interpreter', pair.fast], ['library', pair.library]] as const) {
    const coinbaseAt = async (miner: bigint) =>
      '0x' + Buffer.from(await ex.call({ from: addr(CALLER), to: addr(READER) }, { header: headerFor(root, miner) })).toString('hex');
    t.equal(await coinbaseAt(0n), word(0n), `${engine}: block 0 (genesis): the zero address`);
    t.equal(await coinbaseAt(COINBASE), word(COINBASE), `${engine}: a mined block: its miner ${hexAddress(COINBASE)}`);
  }
});
