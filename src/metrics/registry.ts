// A small Prometheus registry: metric families rendered in the text exposition format 0.0.4
// (`# HELP`, `# TYPE`, then one `name{labels} value` line per sample). Values are read when
// scraped, so nothing is kept up to date between scrapes except counters and histograms.

export type Labels = Readonly<Record<string, string>>;
export type MetricType = 'gauge' | 'counter' | 'histogram';

export interface Sample {
  /** appended to the family name: `_bucket`, `_sum`, `_count` */
  suffix?: string;
  labels?: Labels;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples(): Sample[] | Promise<Sample[]>;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string) => text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return '';
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

export class MetricsRegistry {
  private readonly families: MetricFamily[] = [];

  add(family: MetricFamily): this {
    if (this.families.some((f) => f.name === family.name)) throw new Error(`metric ${family.name} registered twice`);
    this.families.push(family);
    return this;
  }

  /** A gauge read from `read` at each scrape. */
  gauge(name: string, help: string, read: () => number | Promise<number>): this {
    return this.add({ name, help, type: 'gauge', samples: async () => [{ value: await read() }] });
  }

  async render(): Promise<string> {
    const lines: string[] = [];
    for (const family of this.families) {
      const samples = await family.samples();
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
      for (const s of samples) lines.push(`${family.name}${s.suffix ?? ''}${formatLabels(s.labels)} ${formatValue(s.value)}`);
    }
    return lines.join('\n') + '\n';
  }
}

/** Upper bounds (seconds) of the RPC latency histogram buckets. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface MethodStats {
  ok: number;
  error: number;
  /** cumulative counts per bucket, +Inf last */
  buckets: number[];
  sum: number;
}

/** Counts and latencies of RPC calls by method (fed by the dispatchers' onCall hook). */
export class RpcStats {
  private readonly byMethod = new Map<string, MethodStats>();

  /** The dispatcher's onCall hook. */
  readonly observe = (method: string, ms: number, ok: boolean): void => {
    let stats = this.byMethod.get(method);
    if (!stats) {
      stats = { ok: 0, error: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0), sum: 0 };
      this.byMethod.set(method, stats);
    }
    if (ok) stats.ok++;
    else stats.error++;
    const seconds = ms / 1000;
    stats.sum += seconds;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= LATENCY_BUCKETS[i]) stats.buckets[i]++;
    stats.buckets[LATENCY_BUCKETS.length]++;
  };

  families(prefix: string): MetricFamily[] {
    const methods = () => [...this.byMethod].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return [
      {
        name: `${prefix}_rpc_requests_total`,
        help: 'JSON-RPC calls handled, by method and result',
        type: 'counter',
        samples: () =>
          methods().flatMap(([method, s]) => [
            { labels: { method, result: 'ok' }, value: s.ok },
            { labels: { method, result: 'error' }, value: s.error },
          ]),
      },
      {
        name: `${prefix}_rpc_request_duration_seconds`,
        help: 'JSON-RPC call latency, by method',
        type: 'histogram',
        samples: () =>
          methods().flatMap(([method, s]) => [
            ...s.buckets.map((count, i) => ({
              suffix: '_bucket',
              labels: { method, le: i < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[i]) : '+Inf' },
              value: count,
            })),
            { suffix: '_sum', labels: { method }, value: s.sum },
            { suffix: '_count', labels: { method }, value: s.ok + s.error },
          ]),
      },
    ];
  }
}
