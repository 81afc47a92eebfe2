// Golden wire transcripts (geth's rpc/testdata style): every file in transcripts/ is replayed,
// request by request, against a node opened from the committed `contracts` fixture chain, over
// HTTP and over IPC, and each reply must match byte for byte. The node is deterministic: fixed
// node key and SCS id (identity/), remote mining (nothing is sealed) and a fixed clock
// (fixedClock.cjs). The run-dependent text is normalised: the datadir, the IPC path and the
// ports become $DATADIR (also usable in requests), $IPC, $HTTP_PORT, $SCS_PORT, $P2P_PORT, and a value
// captured with `// @capture NAME` (a filter id, a new account: random) becomes $NAME in the
// replies and is sent for $NAME in requests.
//
// When a change of a reply is intended: UPDATE_TRANSCRIPTS=1 npx tap test/rpc/golden/golden.test.ts
// rewrites the `<--` lines from the HTTP replay (then checks IPC against them); review the diff.

import t, { type Test } from 'tap';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startNode, type TestNode } from '../../helpers/node.js';
import { openPrebuilt } from '../../fixtures/chains/prebuilt.js';
import { http, IpcClient, parseTranscript } from '../transport/fixture.js';
import { testDir } from '../../helpers/testDir.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIR = path.join(HERE, 'transcripts');
const UPDATE = process.env.UPDATE_TRANSCRIPTS === '1';
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.txt')).sort();

/** The one app chain of the golden node, declared at start-up. */
const APP_CHAIN = '0x' + 'a1'.repeat(20);
const NODE_ARGS = [
  '--mining.mode', 'remote',
  '--rpcapi', 'libx,mc,net,admin,txpool,personal,vnode,miner,rpc',
  '--verbosity', '1',
  '--lightkdf',
  '--appChains', JSON.stringify([{ address: APP_CHAIN, tokenSupply: '0x3635c9adc5dea00000', flushRound: 50 }]),
];

type Endpoint = 'vnode' | 'scs' | 'scsdebug';
type Transport = 'http' | 'ipc';

let template: string;
t.before(() => {
  template = path.join(testDir(t), 'template');
  openPrebuilt('contracts', template);
  cpSync(path.join(HERE, 'identity'), template, { recursive: true });
});

interface Step {
  line: number;
  endpoint: Endpoint;
  /** `// @capture NAME` before a request: its string result is $NAME in later requests and replies */
  capture: string | undefined;
  /** `// @transport ipc` before a request: replayed over that transport only */
  only: Transport | undefined;
  /** `// @poll` before a request: sent again until its result is not null (work done in the background) */
  poll: boolean;
  request: string;
  reply: string | undefined;
}

/** Cases with their directives; `// @endpoint scs` switches the endpoint for what follows. */
function stepsOf(text: string): Step[] {
  const at = new Map<number, Pick<Step, 'endpoint' | 'capture' | 'only' | 'poll'>>();
  let endpoint: Endpoint = 'vnode';
  let capture: string | undefined;
  let only: Transport | undefined;
  let poll = false;
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '// @poll') poll = true;
    const directive = /^\/\/ @(endpoint|capture|transport) (\S+)\s*$/.exec(raw);
    if (directive?.[1] === 'endpoint') endpoint = directive[2] as Endpoint;
    if (directive?.[1] === 'capture') capture = directive[2];
    if (directive?.[1] === 'transport') only = directive[2] as Transport;
    if (raw.startsWith('--> ')) {
      at.set(i + 1, { endpoint, capture, only, poll });
      capture = only = undefined;
      poll = false;
    }
  });
  return parseTranscript(text).map((c) => ({ ...c, ...at.get(c.line)! }));
}

function normaliser(node: TestNode): (text: string) => string {
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  const pairs: [string, string][] = [
    [json(node.ipcPath), '$IPC'],
    [json(path.resolve(node.datadir)), '$DATADIR'],
    [`:${new URL(node.url).port}`, ':$HTTP_PORT'],
    [`:${new URL(node.scsUrl!).port}`, ':$SCS_PORT'],
  ];
  // The peer-to-peer listener takes a free port (the banner's enode names it).
  const p2pPort = /P2P\s+enode:\/\/\S+:(\d+)/.exec(node.stdout())?.[1];
  if (p2pPort) pairs.push([`:${p2pPort}`, ':$P2P_PORT']);
  return (text) => replaceAll(text, pairs);
}

const resultOf = (reply: string | undefined): unknown => (reply === undefined ? undefined : (JSON.parse(reply) as { result?: unknown }).result);
const replaceAll = (text: string, pairs: [string, string][]) => pairs.reduce((s, [from, to]) => s.split(from).join(to), text);

/** Replays every file, in name order, on one fresh node: later files see what earlier ones sent. */
async function replayAll(t: Test, transport: Transport): Promise<void> {
  const datadir = path.join(testDir(t), 'data');
  cpSync(template, datadir, { recursive: true });
  const node = await startNode(datadir, NODE_ARGS, { NODE_OPTIONS: `--require ${path.join(HERE, 'fixedClock.cjs')}` });
  t.teardown(() => node.stop());
  const ipc = transport === 'ipc' ? await IpcClient.open(node.ipcPath) : undefined;
  t.teardown(() => ipc?.close());
  const normalise = normaliser(node);
  // Requests may name files in the datadir ($DATADIR/…).
  const datadirJson = JSON.stringify(path.resolve(datadir)).slice(1, -1);
  const send = async (endpoint: Endpoint, request: string): Promise<string | undefined> => {
    if (endpoint === 'vnode' && ipc) return ipc.call(request, 10_000);
    // The SCS's rpcdebug variant is the path /rpc of the SCS port.
    const port = Number(new URL(endpoint === 'vnode' ? node.url : node.scsUrl!).port);
    const reply = await http(port, { body: request, path: endpoint === 'scsdebug' ? '/rpc' : '/' });
    return reply.body === '' ? undefined : reply.body;
  };
  const captured: [string, string][] = [];

  for (const file of FILES) {
    await t.test(file, async (t) => {
      const text = readFileSync(path.join(DIR, file), 'utf8');
      const rewritten = new Map<number, string | undefined>();
      for (const step of stepsOf(text)) {
        if (step.only !== undefined && step.only !== transport) continue;
        const request = replaceAll(step.request, [[`$DATADIR`, datadirJson], ...captured.map(([name, value]): [string, string] => [`$${name}`, value])]);
        let reply = await send(step.endpoint, request);
        for (const end = Date.now() + 10_000; step.poll && resultOf(reply) === null && Date.now() < end; ) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          reply = await send(step.endpoint, request);
        }
        if (step.capture !== undefined && reply !== undefined) {
          const result = resultOf(reply);
          if (typeof result === 'string') captured.push([step.capture, result]);
        }
        const got = reply === undefined ? undefined : replaceAll(normalise(reply), captured.map(([name, value]) => [value, `$${name}`]));
        // In update mode HTTP writes every case it runs, IPC only its own; the rest is still compared.
        if (UPDATE && (transport === 'http' || step.only === 'ipc')) rewritten.set(step.line, got);
        else t.equal(got, step.reply, `${file}:${step.line} ${step.endpoint} ${step.request.slice(0, 90)}`);
      }
      if (rewritten.size > 0) {
        let request = 0;
        const lines = text.split('\n').map((raw, i) => {
          if (raw.startsWith('--> ')) request = i + 1;
          if (!raw.startsWith('<-- ') || !rewritten.has(request)) return raw;
          return `<-- ${rewritten.get(request) ?? '(no reply)'}`;
        });
        writeFileSync(path.join(DIR, file), lines.join('\n'));
        t.pass(`${file}: ${rewritten.size} replies rewritten`);
      }
    });
  }
}

t.test('over HTTP', (t) => replayAll(t, 'http'));
t.test('over IPC', (t) => replayAll(t, 'ipc'));

t.test('every method of the interface has a transcript', async (t) => {
  const listed = readFileSync(path.join(HERE, 'interface-methods.txt'), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const sent = new Set<string>();
  for (const file of FILES) {
    for (const c of parseTranscript(readFileSync(path.join(DIR, file), 'utf8'))) sent.add((JSON.parse(c.request) as { method: string }).method);
  }
  t.equal(listed.length, 94);
  t.same(listed.filter((m) => !sent.has(m)), [], 'methods without a transcript');
});
