// `mcnode account new|list|import <keyfile>`: keystore accounts without a running node, as
// geth's `account` command. The password comes from the first line of --password, else from
// one line of standard input.

import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config/schema.js';
import { ConfigError, NodeError } from '../errors.js';
import { Keystore, LIGHT_SCRYPT, STANDARD_SCRYPT } from './keystore.js';
import { readPasswordFile } from './keyManager.js';

export interface CommandIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

const hex = (address: Uint8Array): string => Buffer.from(address).toString('hex');

export async function accountCommand(args: string[], config: Config, io: CommandIo = process): Promise<void> {
  const keystore = new Keystore(path.join(config.datadir, 'keystore'), config.accounts.lightKdf ? LIGHT_SCRYPT : STANDARD_SCRYPT);
  const [action, keyfile] = args;
  try {
    switch (action) {
      case 'list': {
        const entries = await keystore.list();
        entries.forEach((e, i) => io.stdout.write(`Account #${i}: {${hex(e.address)}} keystore://${e.file}\n`));
        return;
      }
      case 'new': {
        const { address, file } = await keystore.newAccount(await password(config, io));
        io.stdout.write(`Address: {${hex(address)}}\nKey file: ${file}\n`);
        return;
      }
      case 'import': {
        if (keyfile === undefined) throw new ConfigError('account import needs a key file: mcnode account import <keyfile>');
        const key = readKeyFile(keyfile);
        let entry;
        try {
          entry = await keystore.importKey(key, await password(config, io));
        } catch (err) {
          if (err instanceof RangeError) throw new ConfigError(`${keyfile} does not hold a valid secp256k1 private key`);
          throw err;
        }
        io.stdout.write(`Address: {${hex(entry.address)}}\nKey file: ${entry.file}\n`);
        return;
      }
      default:
        throw new ConfigError(`unknown account action "${action}" (expected one of new, list, import)`);
    }
  } catch (err) {
    // "account already exists" and the like are the user's problem, not a crash.
    if (err instanceof NodeError) throw new ConfigError(err.message);
    throw err;
  }
}

/** An unencrypted private key: 64 hex digits (0x optional), surrounding whitespace ignored. */
function readKeyFile(file: string): Uint8Array {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new ConfigError(`cannot read key file ${file}: ${(err as Error).message}`);
  }
  const m = /^(0x)?([0-9a-fA-F]{64})$/.exec(text);
  if (!m) throw new ConfigError(`${file} does not hold a hex private key (64 hex digits)`);
  return Uint8Array.from(Buffer.from(m[2], 'hex'));
}

async function password(config: Config, io: CommandIo): Promise<string> {
  if (config.accounts.password !== undefined) return readPasswordFile(config.accounts.password)[0] ?? '';
  if ((io.stdin as { isTTY?: boolean }).isTTY) io.stderr.write('Password (shown as typed; use --password <file> to avoid): ');
  return readLine(io.stdin);
}

/** The first line of a stream (without its line end); the rest is left unread. */
function readLine(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const done = (line: string): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', reject);
      stream.pause();
      resolve(line.replace(/\r$/, ''));
    };
    const onData = (chunk: Buffer | string): void => {
      buffer += chunk.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) done(buffer.slice(0, nl));
    };
    const onEnd = (): void => done(buffer);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', reject);
  });
}
