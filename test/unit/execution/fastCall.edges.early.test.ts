import t from 'tap';
import { FORKS } from './fastCall/harness.js';
import { runEdges } from './fastCall/edges.js';

// Thousands of messages on the library EVM: on a loaded machine this file needs more than tap's default.
t.setTimeout(900_000);

// The edge programs (fastCall/programs.ts) under chainstart .. constantinople; the later hardforks
// are in fastCall.edges.late.test.ts (two files, so that tap runs the halves side by side).

t.test('edge programs on our interpreter and the library, chainstart .. constantinople', (t) =>
  runEdges(t, FORKS.slice(0, FORKS.indexOf('petersburg'))));
