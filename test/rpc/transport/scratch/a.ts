import { Dispatcher } from '../../../../src/rpc/dispatch.js';
const methods = new Map([['echo', { handler: (p: unknown) => p }], ['mc_blockNumber', { handler: () => '0x1' }]]);
const d = new Dispatcher({ methods });
for (const b of ['{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,2]}', '{"jsonrpc":"2.0","id":null,"method":"eth_blockNumber"}', '[]', '[1,2]', 'x', '{"jsonrpc":"2.0","method":"echo"}', '{"jsonrpc":"2.0","id":9999999999,"method":"__proto__"}'])
  console.log(b, '=>', await d.handle(b, { transport: 'http' }));
