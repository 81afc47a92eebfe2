// The malformed-input corpus (issue #7): one table of requests a hostile or buggy client may
// send, each with the exact HTTP status and JSON-RPC code a real node must answer, replayed by
// corpus.test.ts against the VNODE HTTP endpoint, both SCS variants and IPC.
//
// The envelope rules themselves are pinned down in-process by test/rpc/transport (transcript);
// this table aims them, and the param rules of README "Methods served", at the real method tables.
// Rows: corpusEnvelope.ts (bad JSON, envelope, batches, HTTP, nesting, huge, IPC) and
// corpusParams.ts (params, unknown methods, prototype names, app-chain params).

import type { HttpCall } from '../../tools/lib/rpcClient.js';
import { envelopeCases } from './corpusEnvelope.js';
import { paramCases } from './corpusParams.js';

/** Where a case runs: VNODE HTTP (`/`), SCS `rpc` (`/`), SCS rpcdebug (`/rpc`), VNODE IPC. */
export const TARGETS = ['vnode', 'scs', 'scsdebug', 'ipc'] as const;
export type Target = (typeof TARGETS)[number];

export const CATEGORIES = [
  'bad-json', 'envelope', 'batch', 'http', 'params', 'nesting', 'huge', 'unknown-method', 'prototype', 'app-chain', 'ipc',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** What must come back. */
export interface Expect {
  /** HTTP status (default 200); not checked over IPC */
  status?: number;
  /** single reply: 'ok' = a result, a number = error.code, 'none' = nothing at all (HTTP: empty body) */
  code?: number | 'ok' | 'none';
  /** batch reply: one entry per element, in order */
  batch?: Array<number | 'ok'>;
  /** the reply's id, when it is not simply the request's */
  id?: string | number | null;
  message?: RegExp;
  /** exact result */
  result?: unknown;
  /** a non-JSON-RPC HTTP body (refusals: 403, 405, 413, 415) */
  text?: RegExp;
  /** response headers: exact value, or undefined for "absent" */
  headers?: Record<string, string | undefined>;
  /** IPC only: the connection is closed after the reply */
  closes?: boolean;
  /** IPC only: several reply lines for several values sent at once */
  lines?: Array<number | 'ok'>;
}

export interface CorpusCase {
  name: string;
  category: Category;
  /** the body sent to `target`; undefined = the case does not run there */
  request(target: Target): string | Buffer | undefined;
  /** HTTP details (method, headers, path, chunking); a case with `http` never runs over IPC */
  http?: Omit<HttpCall, 'body'>;
  expect: Expect;
  /** IPC only: write the request in pieces of this many bytes */
  ipcChunkBytes?: number;
  /** per-target differences from `expect` */
  except?: Partial<Record<Target, Expect>>;
}

/** Values the rows refer to, fixed by the corpus node's setup. */
export interface CorpusEnv {
  /** the declared app chain */
  chain: string;
  /** a funded dev account */
  account: string;
  /** a contract whose code returns `calldata[0:32]` zero bytes (RETURN(0, n)): big replies from small calls */
  bigReturn: string;
}

export function corpusCases(env: CorpusEnv): CorpusCase[] {
  return [...envelopeCases(env), ...paramCases(env)];
}
