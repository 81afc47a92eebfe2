// The package's entry (package.json "exports"): `import { startNode } from 'mcnode'`.
// docs/library.md is the reference.

export { startNode } from './startNode.js';
export type { StartNodeOptions, RunningNode, NodeAccount } from './startNode.js';
export type { ConfigOptions, ChainSection, GenesisObject } from './options.js';
export { ProviderRpcError } from './provider.js';
export type { Eip1193Provider, RequestArguments, ProviderMessage } from './provider.js';
export { ConfigError, NodeError } from '../errors.js';
