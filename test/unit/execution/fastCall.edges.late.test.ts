import t from 'tap';
import { FORKS } from './fastCall/harness.js';
import { runEdges } from './fastCall/edges.js';

// Thousands of messages on the library EVM: on a loaded machine this file needs more than tap's default.
t.setTimeout(900_000);

// The edge programs (fastCall/programs.ts) under petersburg .. london; the earlier hardforks are
// in fastCall.edges.early.test.ts.

t.test('edge programs on our interpreter and the library, petersburg .. london', (t) =>
  runEdges(t, FORKS.slice(FORKS.indexOf('petersburg'))));
