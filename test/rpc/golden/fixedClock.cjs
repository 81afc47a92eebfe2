// Preloaded into the golden-transcript node (`--require`): the wall clock stands still at a fixed
// instant, so pending blocks, work packages and app-chain genesis blocks are the same on every
// run. Never loaded by mcnode itself.
'use strict';

const FIXED_MS = 1_600_003_600_000; // after the last block of the fixture chains
Date.now = () => FIXED_MS;
