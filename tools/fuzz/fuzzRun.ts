// Sends fuzz bodies to a running node and judges every answer: within the deadline, the designed
// HTTP status, a valid JSON-RPC reply (or nothing, exactly when the design says so), the id
// echoed. Several bodies are in flight per endpoint; each body is judged on its own.

import { IpcConnection, httpCall, replyProblem } from '../lib/rpcClient.js';
import { FUZZ_ENDPOINTS, fuzzBody, type FuzzEndpoint, type FuzzEnv } from './mutate.js';
import { MAX_BODY, expectsReply, ipcValues, singleId } from './oracle.js';

export interface FuzzTargets {
  http: string;
  scs: string;
  ipc: string;
}

export interface FuzzOptions {
  seed: number;
  /** bodies per endpoint */
  count: number;
  env: FuzzEnv;
  targets: FuzzTargets;
  endpoints?: readonly FuzzEndpoint[];
  /** only these indexes (reproducing one failure) */
  only?: number[];
  deadlineMs?: number;
  concurrency?: number;
  /** called every `progressEvery` bodies of an endpoint */
  onProgress?: (endpoint: FuzzEndpoint, done: number) => void;
}

export interface FuzzFailure {
  endpoint: FuzzEndpoint;
  index: number;
  reason: string;
  body: string;
}

export interface FuzzResult {
  sent: Record<FuzzEndpoint, number>;
  failures: FuzzFailure[];
  slowestMs: number;
  statuses: Record<string, number>;
  /** JSON-RPC outcomes seen: 'result', an error code, 'batch', or 'none' (no reply) */
  outcomes: Record<string, number>;
}

const SENTINEL = '{"jsonrpc":"2.0","id":"fuzz-sentinel","method":"mc_blockNumber","params":[]}';

export async function runFuzz(o: FuzzOptions): Promise<FuzzResult> {
  const deadline = o.deadlineMs ?? 2000;
  const result: FuzzResult = { sent: { vnode: 0, scs: 0, scsdebug: 0, ipc: 0 }, failures: [], slowestMs: 0, statuses: {}, outcomes: {} };
  const endpoints = o.endpoints ?? FUZZ_ENDPOINTS;
  await Promise.all(
    endpoints.map(async (endpoint) => {
      const indexes = o.only ?? Array.from({ length: o.count }, (_, i) => i);
      let next = 0;
      const worker = async () => {
        while (next < indexes.length) {
          const index = indexes[next++];
          const body = fuzzBody(o.seed, endpoint, index, o.env);
          const started = performance.now();
          let reason: string | undefined;
          try {
            reason = endpoint === 'ipc' ? await judgeIpc(o.targets.ipc, body, deadline, result) : await judgeHttp(o.targets, endpoint, body, deadline, result);
          } catch (err) {
            reason = (err as Error).message;
          }
          const ms = performance.now() - started;
          result.slowestMs = Math.max(result.slowestMs, ms);
          if (!reason && ms > deadline) reason = `answered after ${Math.round(ms)} ms (limit ${deadline} ms)`;
          result.sent[endpoint]++;
          if (reason) result.failures.push({ endpoint, index, reason, body: excerpt(body) });
          if (result.sent[endpoint] % 500 === 0) o.onProgress?.(endpoint, result.sent[endpoint]);
        }
      };
      await Promise.all(Array.from({ length: o.concurrency ?? 4 }, worker));
    }),
  );
  return result;
}

async function judgeHttp(targets: FuzzTargets, endpoint: FuzzEndpoint, body: Buffer, deadline: number, result: FuzzResult): Promise<string | undefined> {
  const url = endpoint === 'vnode' ? targets.http : endpoint === 'scs' ? targets.scs : `${targets.scs}/rpc`;
  // A generous socket timeout: the deadline is judged from the measured time, not by aborting.
  const reply = await httpCall(url, { body, timeoutMs: deadline * 5 });
  result.statuses[reply.status] = (result.statuses[reply.status] ?? 0) + 1;
  const designed = body.length > MAX_BODY ? 413 : 200;
  if (reply.status !== designed) return `HTTP ${reply.status}, designed ${designed}: ${reply.body.slice(0, 200)}`;
  if (designed !== 200) return undefined;
  return judgeText(body, reply.body, result);
}

/** The reply text for one message: empty exactly when no reply is due, else valid JSON-RPC echoing the id. */
function judgeText(body: Buffer, text: string, result: FuzzResult): string | undefined {
  const due = expectsReply(body);
  const outcome = text === '' ? 'none' : outcomeOf(text);
  result.outcomes[outcome] = (result.outcomes[outcome] ?? 0) + 1;
  if (!due) return text === '' ? undefined : `a reply to a notification: ${text.slice(0, 200)}`;
  if (text === '') return 'no reply where one is due';
  const problem = replyProblem(text);
  if (problem) return `invalid reply (${problem}): ${text.slice(0, 200)}`;
  const sent = singleId(body);
  if (sent.has) {
    const reply = JSON.parse(text);
    if (Array.isArray(reply) || reply.id !== sent.id) return `id ${JSON.stringify(sent.id)} not echoed: ${text.slice(0, 200)}`;
  }
  return undefined;
}

async function judgeIpc(path: string, body: Buffer, deadline: number, result: FuzzResult): Promise<string | undefined> {
  const { values, clean } = ipcValues(body);
  const conn = await IpcConnection.open(path);
  try {
    conn.write(Buffer.concat([body, Buffer.from('\n')]));
    for (const value of values) {
      if (!expectsReply(value)) continue;
      const line = await conn.next(deadline * 5);
      if (line === undefined) return `connection closed before the reply to value ${excerpt(value)}`;
      const reason = judgeText(value, line, result);
      if (reason) return reason;
    }
    if (!clean) return undefined; // an unfinished value waits for more bytes: nothing else is due
    conn.write(SENTINEL + '\n');
    const line = await conn.next(deadline * 5);
    if (line === undefined) return 'connection closed instead of answering the next call';
    if (!line.includes('"fuzz-sentinel"')) return `an unexpected extra reply: ${line.slice(0, 200)}`;
    return undefined;
  } finally {
    conn.close();
  }
}

function outcomeOf(text: string): string {
  try {
    const v = JSON.parse(text);
    if (Array.isArray(v)) return 'batch';
    return v.error ? String(v.error.code) : 'result';
  } catch {
    return 'not JSON';
  }
}

function excerpt(body: Buffer): string {
  const text = body.toString('utf8');
  return text.length > 400 ? `${text.slice(0, 400)}… (${body.length} bytes)` : text;
}
