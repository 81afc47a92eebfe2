// The contract actions the Otterscan, trace and explorer tests run on mcnode and on Anvil alike:
// a deployment, an internal value transfer, CREATE + CREATE2 + SELFDESTRUCT, console.log calls
// and a revert with a reason (test/fixtures/contracts/Ops.sol), sent with eth_sendTransaction
// from the node's first account.

import { contract, encodeCall, word } from './abi.js';

export type Rpc = (method: string, params?: unknown[]) => Promise<any>;

export interface Scenario {
  from: string;
  /** the recipient of the forwarded value */
  payee: string;
  ops: string;
  deploy: string;
  forward: string;
  make: string;
  shout: string;
  fail: string;
  /** addresses the make transaction created: CREATE, CREATE2 */
  children: [string, string];
}

const GAS = '0x2dc6c0'; // 3,000,000
const GAS_PRICE = '0x3b9aca00'; // 1 gwei, the devnet's minimum

async function receipt(rpc: Rpc, hash: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await rpc('eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no receipt for ${hash}`);
}

/** `shout("hi", 5)`: a string in ABI encoding. */
export const SHOUT_DATA = encodeCall('shout(string,uint256)', 64, 5) + word(2) + Buffer.from('hi').toString('hex').padEnd(64, '0');

export async function runScenario(rpc: Rpc): Promise<Scenario> {
  const [from, payee] = await rpc('eth_accounts');
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc('eth_sendTransaction', [{ from, gas: GAS, gasPrice: GAS_PRICE, ...tx }]);
    return receipt(rpc, hash);
  };
  const deployed = await send({ data: contract('Ops').bytecode });
  const ops = deployed.contractAddress as string;
  const forward = await send({ to: ops, value: '0x64', data: encodeCall('forward(address)', payee) });
  const make = await send({ to: ops, value: '0x10', data: encodeCall('make(bytes32)', 7) });
  const shout = await send({ to: ops, data: SHOUT_DATA });
  const fail = await send({ to: ops, data: encodeCall('fail(uint256)', 3) });
  const made = make.logs[0].data.slice(2);
  const children: [string, string] = ['0x' + made.slice(24, 64), '0x' + made.slice(88, 128)];
  return {
    from: from.toLowerCase(), payee: payee.toLowerCase(), ops, children,
    deploy: deployed.transactionHash, forward: forward.transactionHash, make: make.transactionHash,
    shout: shout.transactionHash, fail: fail.transactionHash,
  };
}
