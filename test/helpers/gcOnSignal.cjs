// Preloaded into a node under test (`node --expose-gc --require <this file> …`): SIGUSR2 runs a
// full garbage collection and reports the live heap on stderr, so a memory check compares what is
// still alive instead of depending on when V8 chooses to collect. Never loaded by mcnode itself.
'use strict';

process.on('SIGUSR2', () => {
  globalThis.gc();
  const { heapUsed, external } = process.memoryUsage();
  process.stderr.write(`full collection: heap ${heapUsed} external ${external}\n`);
});
