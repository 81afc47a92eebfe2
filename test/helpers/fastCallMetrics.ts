// The call interpreter's counters of a node started with `--metrics --metrics.port 0`, read from
// /metrics (mcnode_fastcall_*_total): call-heavy tests end by asserting that verification
// (`--rpc.fastcall.verify 1`, the startNode default) compared answers and found no disagreement.

import type { TestNode } from './node.js';

export interface FastCallCounters {
  calls: number;
  fallbacks: number;
  faults: number;
  verified: number;
  disagreements: number;
}

export async function fastCallCounters(node: TestNode): Promise<FastCallCounters> {
  const url = /^metrics\s+(http:\/\/\S+\/metrics)$/m.exec(node.stdout())?.[1];
  if (url === undefined) throw new Error('the node serves no metrics: start it with --metrics --metrics.port 0');
  const text = await (await fetch(url)).text();
  const read = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`mcnode_fastcall_${name}_total `));
    if (line === undefined) throw new Error(`/metrics has no mcnode_fastcall_${name}_total`);
    return Number(line.split(' ')[1]);
  };
  return { calls: read('calls'), fallbacks: read('fallbacks'), faults: read('faults'), verified: read('verified'), disagreements: read('disagreements') };
}
