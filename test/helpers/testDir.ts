// A test's temporary directory, removed only after the test's teardowns have run.
//
// tap removes `t.testdir()` at the end of the test, and runs the teardowns registered with
// `t.teardown` after that removal when the directory was asked for first (each wraps the test's
// end in the order it was first used). A node stopped in a teardown was then still running, and
// still writing, while its datadir was deleted: rimraf failed with ENOTEMPTY now and then.
// Registering a teardown first puts the removal last.

import type { Test } from 'tap';

type Content = Parameters<Test['testdir']>[0];

export function testDir(t: Test, content?: Content): string {
  t.teardown(() => {});
  return t.testdir(content);
}
