// The child process of startNode({ process: 'child' }) (childProcess.ts): starts the node in
// this process with the parent's options, answers the parent's requests through its provider,
// forwards subscription messages, and stops the node and exits when told to or when the parent
// goes away (its IPC channel closes).

import { startNode, type RunningNode } from './startNode.js';
import { ProviderRpcError } from './provider.js';
import type { ChildReport, ParentCommand } from './childProtocol.js';

const report = (message: ChildReport) => {
  if (process.connected) process.send!(message);
};

let node: RunningNode | undefined;
let stopping = false;

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  let code = 0;
  try {
    await node?.stop();
  } catch (err) {
    process.stderr.write(`mcnode: stopping failed: ${(err as Error).message}\n`);
    code = 1;
  }
  process.exit(code);
}

process.on('message', (command: ParentCommand) => {
  switch (command.type) {
    case 'start':
      startNode(command.options).then(
        (started) => {
          node = started;
          const { provider, stop: _stop, ...described } = started;
          provider.on('message', (message) => report({ type: 'message', message }));
          report({ type: 'started', node: described, chainId: '0x' + started.chainId.toString(16) });
        },
        (err: Error) => {
          report({ type: 'failed', message: err.message, name: err.name });
          process.exit(1);
        },
      );
      return;
    case 'request':
      if (!node) return report({ type: 'reply', id: command.id, error: { code: -32603, message: 'the node has not started' } });
      node.provider.request(command.args).then(
        (result) => report({ type: 'reply', id: command.id, result }),
        (err: ProviderRpcError) => report({ type: 'reply', id: command.id, error: { code: err.code, message: err.message, data: err.data } }),
      );
      return;
    case 'stop':
      void stop();
  }
});
process.on('disconnect', () => void stop());
