// Process health for long runs (the soak test, operators): resident memory, V8 heap, open
// handles and event-loop delay. The delay percentiles come from perf_hooks' sampling histogram,
// read over fixed windows so that a scrape shows the last window, whoever else scrapes.

import type { IntervalHistogram } from 'node:perf_hooks';
import { perfHooks, v8 } from '../runtime/lazyBuiltins.js';
import type { MetricsRegistry } from './registry.js';

/** Length of one event-loop delay window. */
export const LOOP_WINDOW_MS = 10_000;

export interface LoopDelay {
  /** p99 and max (seconds) of the last complete window, or of the current one before the first ends */
  p99(): number;
  max(): number;
  stop(): void;
}

export function watchLoopDelay(windowMs = LOOP_WINDOW_MS): LoopDelay {
  const histogram: IntervalHistogram = perfHooks().monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let last: { p99: number; max: number } | undefined;
  const read = () => ({ p99: histogram.percentile(99) / 1e9, max: histogram.max / 1e9 });
  const timer = setInterval(() => {
    last = histogram.count > 0 ? read() : last;
    histogram.reset();
  }, windowMs);
  timer.unref();
  const current = () => last ?? (histogram.count > 0 ? read() : { p99: 0, max: 0 });
  return {
    p99: () => current().p99,
    max: () => current().max,
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

/** Registers the process gauges on `registry`. */
export function addProcessMetrics(registry: MetricsRegistry, loop: LoopDelay): MetricsRegistry {
  return registry
    .gauge('process_resident_memory_bytes', 'Resident memory size in bytes', () => process.memoryUsage.rss())
    .gauge('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes', () => process.memoryUsage().heapUsed)
    .gauge('nodejs_heap_size_total_bytes', 'V8 heap reserved from the system, in bytes', () => process.memoryUsage().heapTotal)
    .add({
      name: 'nodejs_heap_space_size_total_bytes',
      help: 'V8 heap reserved from the system per space (new, old, code, large objects), in bytes',
      type: 'gauge',
      samples: () => v8().getHeapSpaceStatistics().map((s) => ({ labels: { space: s.space_name.replace(/_space$/, '') }, value: s.space_size })),
    })
    .gauge('nodejs_external_memory_bytes', 'Memory of buffers and other objects outside the V8 heap', () => process.memoryUsage().external)
    .gauge('nodejs_active_handles', 'Open handles and requests keeping the event loop alive (sockets, timers, files)', () =>
      process.getActiveResourcesInfo().length,
    )
    .gauge('nodejs_eventloop_delay_p99_seconds', `99th percentile of event-loop delay over the last ${LOOP_WINDOW_MS / 1000} s window`, () => loop.p99())
    .gauge('nodejs_eventloop_delay_max_seconds', `Largest event-loop delay over the last ${LOOP_WINDOW_MS / 1000} s window`, () => loop.max());
}
