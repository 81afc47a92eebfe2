// The messages between startNode({ process: 'child' }) (childProcess.ts) and the child
// (childEntry.ts), over the child's IPC channel with Node's 'advanced' serialization.

import type { RunningNode, StartNodeOptions } from './startNode.js';
import type { ProviderMessage, RequestArguments } from './provider.js';

export type ParentCommand =
  | { type: 'start'; options: Omit<StartNodeOptions, 'process' | 'log'> }
  | { type: 'request'; id: number; args: RequestArguments }
  | { type: 'stop' };

export type ChildReport =
  | { type: 'started'; node: Omit<RunningNode, 'provider' | 'stop'>; chainId: string }
  | { type: 'failed'; message: string; name: string }
  | { type: 'reply'; id: number; result?: unknown; error?: { code: number; message: string; data?: unknown } }
  | { type: 'message'; message: ProviderMessage };
