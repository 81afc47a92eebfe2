// anvil_dumpState / anvil_loadState and --dump-state / --load-state: the head's accounts in
// Anvil's format out, and an Anvil state in as one setter block (loadState), so a loaded state is
// history like every other change (re-executed by import and peers).

import { readFile, rename, writeFile } from 'node:fs/promises';
import type { Block } from '../chain/types.js';
import type { Database } from '../store/database.js';
import { dumpState, type DumpedAccount } from '../state/stateDump.js';
import type { WorldState } from '../state/worldState.js';
import type { Logger } from '../log.js';
import { wrongState } from '../errors.js';
import { fromAnvilState, toAnvilState, unpackState, type AnvilState } from './anvilStateFile.js';
import type { DevState } from './devState.js';

export class StateFiles {
  constructor(
    private readonly deps: { world: WorldState; db: Database; head: () => Block; log: Logger; /** absent on chains without dev controls: nothing loads */ state?: DevState },
  ) {}

  /** The head's accounts, code and storage in Anvil's format. */
  async dump(): Promise<AnvilState> {
    const head = this.deps.head();
    const { accounts, unnamed } = await dumpState(this.deps.world, this.deps.db, head.header.stateRoot);
    if (unnamed > 0) {
      this.deps.log.warn('state dump: some accounts or slots were written before this datadir kept their preimages and are left out', { unnamed });
    }
    return toAnvilState(accounts, head.header.number);
  }

  /** Applies the accounts of a state (decoded by readState) as one block; resolves once it is sealed. */
  async load(accounts: DumpedAccount[]): Promise<void> {
    if (!this.deps.state) throw wrongState('loading a state needs a chain whose genesis has config.devControls');
    await this.deps.state.set({ op: 'loadState', accounts });
  }

  /** --dump-state: plain JSON as Anvil writes it, through a temporary file so a crash leaves the old one whole. */
  async writeFile(file: string): Promise<void> {
    const temporary = `${file}.tmp-${process.pid}`;
    await writeFile(temporary, JSON.stringify(await this.dump()));
    await rename(temporary, file);
  }

  /** --load-state: a file Anvil or mcnode wrote (JSON, or gzipped JSON). */
  async readFile(file: string): Promise<void> {
    await this.load(readState(await readFile(file)));
  }
}

/** The accounts of a state in Anvil's format: gzipped JSON or JSON bytes (throws a DecodeError). */
export const readState = (bytes: Uint8Array): DumpedAccount[] => fromAnvilState(unpackState(bytes));
