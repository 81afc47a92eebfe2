// eth_call with a 10-account state override (req/s, 8 clients for 5 s) and eth_simulateV1 of
// 10 blocks × 10 calls (latency, 30 runs), against any JSON-RPC URL, so mcnode and Anvil are
// measured the same way (design.md §17, issue 25 item 8). Every answer is checked.
// Run: `npx tsc -p . && node dist/bench/overrides.js http://127.0.0.1:8545` (and Anvil's URL).

const url = process.argv[2] ?? 'http://127.0.0.1:8545';
const account = (i: number) => '0x' + (0xb000 + i).toString(16).padStart(40, '0');
const slot = (n: number) => '0x' + n.toString(16).padStart(64, '0');

const overrides: Record<string, { balance: string; stateDiff: Record<string, string>; code?: string }> = {};
for (let i = 0; i < 10; i++) overrides[account(i)] = { balance: '0x' + (1000 + i).toString(16), stateDiff: { [slot(1)]: slot(7) } };
// account 0 returns BALANCE(account 1): PUSH20 a BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
overrides[account(0)].code = '0x73' + account(1).slice(2) + '31600052' + '60206000f3';
const EXPECTED = slot(1001);

let id = 0;
async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }) });
  const reply = (await res.json()) as { result?: unknown; error?: unknown };
  if (reply.error !== undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function call(): Promise<void> {
  const result = await rpc('eth_call', [{ to: account(0) }, 'latest', overrides]);
  if (result !== EXPECTED) throw new Error(`eth_call answered ${String(result)}`);
}

async function main(): Promise<void> {
  for (let i = 0; i < 200; i++) await call();
  const start = performance.now();
  let done = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() - start < 5000) {
      await call();
      done++;
    }
  }));
  console.log(`eth_call with a 10-account state override: ${(done / ((performance.now() - start) / 1000)).toFixed(0)} req/s`);

  const calls = Array.from({ length: 10 }, () => ({ from: account(5), to: account(0) }));
  const blocks = Array.from({ length: 10 }, (_, b) => ({ stateOverrides: b === 0 ? overrides : undefined, calls }));
  const latencies: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    const result = (await rpc('eth_simulateV1', [{ blockStateCalls: blocks }, 'latest'])) as unknown[];
    if (result.length !== 10) throw new Error(`eth_simulateV1 gave ${result.length} blocks`);
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  console.log(`eth_simulateV1, 10 blocks x 10 calls: median ${latencies[15].toFixed(1)} ms, p90 ${latencies[27].toFixed(1)} ms`);
}

await main();
