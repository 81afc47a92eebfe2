// An independent remote miner for tests: its own keccak call (the library, not the node's PoW
// code), its own process. Fetches mc_getWork over HTTP, searches nonces from a start value,
// prints {sealHash, nonce, mix} as JSON. With --submit it also calls mc_submitWork.
//   node testMiner.mjs <url> [--start N] [--submit]
import { keccak256 } from 'ethereum-cryptography/keccak.js';

const [url, ...rest] = process.argv.slice(2);
const start = BigInt(rest.includes('--start') ? rest[rest.indexOf('--start') + 1] : '0');
const submit = rest.includes('--submit');

async function rpc(method, params) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const hex = (bytes) => '0x' + Buffer.from(bytes).toString('hex');
const [sealHash, , target] = await rpc('mc_getWork', []);
const input = new Uint8Array(40);
input.set(Buffer.from(sealHash.slice(2), 'hex'));
const limit = BigInt(target);
for (let n = start; ; n++) {
  new DataView(input.buffer).setBigUint64(32, n);
  const mix = keccak256(input);
  if (BigInt(hex(mix)) <= limit) {
    const nonce = '0x' + n.toString(16).padStart(16, '0');
    const result = { sealHash, nonce, mix: hex(mix) };
    if (submit) result.accepted = await rpc('mc_submitWork', [nonce, sealHash, hex(mix)]);
    console.log(JSON.stringify(result));
    break;
  }
}
