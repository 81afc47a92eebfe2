// Replays transcripts/envelope.txt in-process (both invokers), over HTTP and over IPC.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Dispatcher } from '../../../src/rpc/dispatch.js';
import { HttpRpcServer } from '../../../src/rpc/http.js';
import { IpcRpcServer } from '../../../src/rpc/ipc.js';
import { IpcClient, parseTranscript, post, testMethods } from './fixture.js';
import { testDir } from '../../helpers/testDir.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const cases = parseTranscript(readFileSync(join(here, 'transcripts', 'envelope.txt'), 'utf8'));
const SENTINEL = '{"jsonrpc":"2.0","id":"sentinel","method":"echo","params":[]}';
const SENTINEL_REPLY = '{"jsonrpc":"2.0","id":"sentinel","result":[]}';

t.ok(cases.length >= 70, `the transcript holds ${cases.length} cases`);

for (const invoker of ['jayson', 'direct'] as const) {
  t.test(`in-process, ${invoker} invoker`, async (t) => {
    const d = new Dispatcher({ methods: testMethods(), invoker });
    for (const c of cases) {
      t.equal(await d.handle(c.request, { transport: 'ipc' }), c.reply, `line ${c.line}`);
    }
  });
}

t.test('over HTTP', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const server = new HttpRpcServer({ host: '127.0.0.1', port: 0, corsOrigins: [], vhosts: ['localhost'], route: () => d });
  const { port } = await server.start();
  t.teardown(() => server.stop());
  for (const c of cases) {
    const reply = await post(port, c.request);
    t.equal(reply.status, 200, `line ${c.line}: status`);
    t.equal(reply.body, c.reply ?? '', `line ${c.line}`);
    if (c.reply !== undefined) t.equal(reply.headers['content-type'], 'application/json', `line ${c.line}: type`);
  }
});

t.test('over IPC', async (t) => {
  const d = new Dispatcher({ methods: testMethods() });
  const path = join(testDir(t), 'node.ipc');
  const server = new IpcRpcServer({ path, dispatcher: d });
  await server.start();
  t.teardown(() => server.stop());
  const client = await IpcClient.open(path);
  t.teardown(() => client.close());
  for (const c of cases) {
    if (c.reply === undefined) {
      // Replies keep request order, so anything sent for the request would precede the sentinel's.
      client.write(c.request + '\n' + SENTINEL + '\n');
      t.equal(await client.next(), SENTINEL_REPLY, `line ${c.line}: nothing before the sentinel`);
    } else {
      t.equal(await client.call(c.request), c.reply, `line ${c.line}`);
    }
  }
});
