// startNode({ process: 'child' }): the node runs in a Node child process (childEntry.ts, which
// calls startNode there) and this process gets the same result object. The provider's requests,
// replies and subscription messages travel over the child's IPC channel; the URLs, the IPC path
// and the enode are the child's, reachable from here. docs/library.md#in-a-child-process.

import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { RunningNode, StartNodeOptions } from './startNode.js';
import { DISCONNECTED, ProviderRpcError, type Eip1193Provider, type RequestArguments } from './provider.js';
import type { ChildReport, ParentCommand } from './childProtocol.js';

/** The child's entry, compiled: dist/src/library/childEntry.js, also when this code runs from sources (tests). */
function childEntry(): string {
  const here = new URL(import.meta.url);
  const file = here.pathname.endsWith('.ts') ? '../../dist/src/library/childEntry.js' : './childEntry.js';
  return fileURLToPath(new URL(file, here));
}

export function startChildNode(options: StartNodeOptions): Promise<RunningNode> {
  const { log, process: _where, ...rest } = options;
  const child = fork(childEntry(), [], {
    serialization: 'advanced', // bigints and typed arrays in options and replies
    stdio: ['ignore', 'ignore', log ? 'pipe' : 'inherit', 'ipc'],
    execArgv: [],
  });
  if (log) forwardLines(child, log);
  const send = (command: ParentCommand) => {
    if (child.connected) child.send(command);
  };
  return new Promise<RunningNode>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      reject(new Error(`the node's child process exited before it started (${signal ?? `code ${code}`})`));
    };
    child.once('exit', onExit);
    child.once('error', reject);
    child.on('message', function onStart(report: ChildReport) {
      if (report.type === 'failed') {
        child.off('message', onStart);
        child.off('exit', onExit);
        reject(Object.assign(new Error(report.message), { name: report.name }));
        return;
      }
      if (report.type !== 'started') return;
      child.off('message', onStart);
      child.off('exit', onExit);
      child.off('error', reject);
      const provider = new ChildProvider(child, send, report.chainId);
      let stopping: Promise<void> | undefined;
      resolve({
        ...report.node,
        provider,
        stop() {
          stopping ??= new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('close', () => done());
            send({ type: 'stop' });
          });
          return stopping;
        },
      });
    });
    send({ type: 'start', options: rest });
  });
}

/** The child's log lines, one call each. */
function forwardLines(child: ChildProcess, log: (line: string) => void): void {
  let partial = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) log(line);
  });
}

/** EIP-1193 over the child's channel: each request waits for the reply of its id. */
class ChildProvider extends EventEmitter implements Eip1193Provider {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private connected = true;

  constructor(child: ChildProcess, private readonly send: (command: ParentCommand) => void, chainId: string) {
    super();
    child.on('message', (report: ChildReport) => {
      if (report.type === 'reply') {
        const waiting = this.pending.get(report.id);
        this.pending.delete(report.id);
        if (report.error) waiting?.reject(new ProviderRpcError(report.error.code, report.error.message, report.error.data));
        else waiting?.resolve(report.result);
      } else if (report.type === 'message') {
        this.emit('message', report.message);
      }
    });
    child.once('exit', () => this.disconnect());
    setImmediate(() => {
      if (this.connected) this.emit('connect', { chainId });
    });
  }

  isConnected(): boolean {
    return this.connected;
  }

  request(args: RequestArguments): Promise<unknown> {
    if (!this.connected) return Promise.reject(new ProviderRpcError(DISCONNECTED, 'the node has stopped'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ type: 'request', id, args: { method: args?.method, params: args?.params } });
    });
  }

  private disconnect(): void {
    if (!this.connected) return;
    this.connected = false;
    const error = new ProviderRpcError(DISCONNECTED, 'the node has stopped');
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    this.emit('disconnect', error);
  }
}
