// The node's persistent identity: a secp256k1 key in `<datadir>/nodekey` (64 hex digits, as geth
// writes it), created on first start. The node id is the uncompressed public key without 0x04.

import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { isPrivateKey, publicKeyOf, randomPrivateKey } from '../accounts/keys.js';

export const NODE_KEY_FILE = 'nodekey';

export function loadOrCreateNodeKey(datadir: string): Uint8Array {
  const file = path.join(datadir, NODE_KEY_FILE);
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`cannot read node key ${file}: ${(err as Error).message}`);
  }
  if (text !== undefined) {
    const hex = text.trim();
    const key = /^[0-9a-fA-F]{64}$/.test(hex) ? Uint8Array.from(Buffer.from(hex, 'hex')) : undefined;
    if (!key || !isPrivateKey(key)) {
      throw new ConfigError(`invalid node key in ${file}: expected 64 hex digits of a secp256k1 private key`);
    }
    return key;
  }
  const key = randomPrivateKey();
  fs.mkdirSync(datadir, { recursive: true });
  fs.writeFileSync(file, Buffer.from(key).toString('hex'), { mode: 0o600 });
  return key;
}

/** 64-byte node id: the public key's x ‖ y. */
export function nodeIdOf(nodeKey: Uint8Array): Uint8Array {
  return publicKeyOf(nodeKey).slice(1);
}
