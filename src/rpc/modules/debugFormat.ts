// The tracers' results in geth's JSON shapes (struct logger, callTracer, prestateTracer,
// 4byteTracer). Numbers that geth writes as JSON numbers stay numbers.

import { bytesToHex, encodeQuantity } from '../../encoding/hex.js';
import type { StructLog, StructTrace } from '../../tracing/structLogger.js';
import type { CallFrame, CallLog } from '../../tracing/callTracer.js';
import type { AccountState, PrestateResult, StateMap } from '../../tracing/prestateTracer.js';

const word64 = (v: bigint) => v.toString(16).padStart(64, '0');

function formatStructLog(log: StructLog): Record<string, unknown> {
  const out: Record<string, unknown> = {
    pc: log.pc, op: log.op, gas: Number(log.gas), gasCost: Number(log.gasCost), depth: log.depth,
  };
  if (log.error !== undefined) out.error = log.error;
  if (log.stack) out.stack = log.stack.map((v) => encodeQuantity(v));
  if (log.returnData && log.returnData.length > 0) out.returnData = bytesToHex(log.returnData);
  if (log.memory) {
    const words: string[] = [];
    for (let i = 0; i < log.memory.length; i += 32) words.push(Buffer.from(log.memory.subarray(i, i + 32)).toString('hex'));
    out.memory = words;
  }
  if (log.storage) out.storage = Object.fromEntries([...log.storage].map(([k, v]) => [word64(k), word64(v)]));
  if (log.refund > 0n) out.refund = Number(log.refund);
  return out;
}

export function formatStructTrace(trace: StructTrace) {
  return {
    gas: Number(trace.gas),
    failed: trace.failed,
    returnValue: bytesToHex(trace.returnValue),
    structLogs: trace.structLogs.map(formatStructLog),
  };
}

function formatCallLog(log: CallLog) {
  return { address: bytesToHex(log.address), topics: log.topics.map(bytesToHex), data: bytesToHex(log.data), position: encodeQuantity(log.position) };
}

/** Empty members are left out, as geth's omitempty does. */
export function formatCallFrame(frame: CallFrame): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: frame.type,
    from: bytesToHex(frame.from),
    gas: encodeQuantity(frame.gas),
    gasUsed: encodeQuantity(frame.gasUsed),
  };
  if (frame.to) out.to = bytesToHex(frame.to);
  out.input = bytesToHex(frame.input);
  if (frame.output && frame.output.length > 0) out.output = bytesToHex(frame.output);
  if (frame.error !== undefined) out.error = frame.error;
  if (frame.revertReason !== undefined) out.revertReason = frame.revertReason;
  if (frame.calls.length > 0) out.calls = frame.calls.map(formatCallFrame);
  if (frame.logs.length > 0) out.logs = frame.logs.map(formatCallLog);
  if (frame.value !== undefined) out.value = encodeQuantity(frame.value);
  return out;
}

function formatAccount(a: AccountState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.balance >= 0n) out.balance = encodeQuantity(a.balance);
  if (a.nonce > 0n) out.nonce = Number(a.nonce);
  if (a.code.length > 0) out.code = bytesToHex(a.code);
  if (a.storage.size > 0) out.storage = Object.fromEntries([...a.storage].map(([k, v]) => ['0x' + word64(k), '0x' + word64(v)]));
  return out;
}

const formatStateMap = (m: StateMap) => Object.fromEntries([...m].map(([addr, a]) => [addr, formatAccount(a)]));

export function formatPrestate(result: PrestateResult) {
  return result.diff ? { pre: formatStateMap(result.pre), post: formatStateMap(result.post) } : formatStateMap(result.pre);
}

export const formatFourByte = (counts: Map<string, number>) => Object.fromEntries(counts);
