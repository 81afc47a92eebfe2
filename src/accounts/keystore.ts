// The keystore: one Web3 Secret Storage v3 JSON file per account in `<datadir>/keystore`, named
// as geth names them (`UTC--<time>--<address>`), so geth/MOAC tools read them and vice versa.
// New files use scrypt (standard n=262144, r=8, p=1, or geth's "light" n=4096, p=6); reading also
// accepts other scrypt parameters and pbkdf2. Key derivation runs in Node's thread pool
// (node:crypto), not on the event loop: a standard scrypt takes most of a second.

import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { alreadyExists, ErrorKind, keyFileError, NodeError, notFound } from '../errors.js';
import { concatBytes, equalBytes, keccak256 } from '../encoding/bytes.js';
import { bytesToHex, hexToBytes } from '../encoding/hex.js';
import { privateKeyToAddress, randomPrivateKey } from './keys.js';

export interface ScryptParams {
  n: number;
  r: number;
  p: number;
}

export const STANDARD_SCRYPT: ScryptParams = { n: 262144, r: 8, p: 1 };
export const LIGHT_SCRYPT: ScryptParams = { n: 4096, r: 8, p: 6 };

/** Bounds for files we read: beyond them a file could make the node spend gigabytes or minutes. */
const MAX_SCRYPT_MEMORY = 1024 * 1024 * 1024;
const MAX_PBKDF2_ROUNDS = 10_000_000;

export const wrongPassword = (): NodeError =>
  new NodeError(ErrorKind.Unauthorized, 'could not decrypt key with given password');
export const noKey = (): NodeError => notFound('no key for given address or file');

export interface KeyFile {
  address: string;
  crypto: {
    cipher: 'aes-128-ctr';
    ciphertext: string;
    cipherparams: { iv: string };
    kdf: 'scrypt';
    kdfparams: { dklen: number; n: number; p: number; r: number; salt: string };
    mac: string;
  };
  id: string;
  version: 3;
}

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2);

function scrypt(password: Uint8Array, salt: Uint8Array, dklen: number, { n, r, p }: ScryptParams): Promise<Uint8Array> {
  const memory = 128 * r * (n + p + 2);
  if (memory > MAX_SCRYPT_MEMORY) return Promise.reject(keyFileError(`key file scrypt parameters too large (n=${n}, r=${r}, p=${p})`));
  return new Promise<Uint8Array>((resolve, reject) => {
    try {
      crypto.scrypt(password, salt, dklen, { N: n, r, p, maxmem: memory + 1024 * 1024 }, (err, key) =>
        err ? reject(err) : resolve(new Uint8Array(key)),
      );
    } catch (err) {
      reject(err);
    }
  }).catch(async () => {
    // OpenSSL refuses some valid parameters (n ≥ 2^(16·r), e.g. the spec's r=1 vector): compute
    // those in JavaScript, which yields to the event loop while it works.
    try {
      // Loaded only here: it costs ~20 ms of start-up and is the rare path.
      const { scrypt: scryptJs } = await import('ethereum-cryptography/scrypt.js');
      return await scryptJs(password, salt, n, p, r, dklen);
    } catch (err) {
      throw keyFileError(`key file scrypt parameters invalid: ${(err as Error).message}`);
    }
  });
}

function pbkdf2(password: Uint8Array, salt: Uint8Array, rounds: number, dklen: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) =>
    crypto.pbkdf2(password, salt, rounds, dklen, 'sha256', (err, key) => (err ? reject(err) : resolve(new Uint8Array(key)))),
  );
}

function aes128ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const cipher = crypto.createCipheriv('aes-128-ctr', key, iv);
  return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final()]));
}

/** Encrypts a private key into a v3 key file object. */
export async function encryptKey(privateKey: Uint8Array, password: string, params: ScryptParams = STANDARD_SCRYPT): Promise<KeyFile> {
  const salt = new Uint8Array(crypto.randomBytes(32));
  const iv = new Uint8Array(crypto.randomBytes(16));
  const derived = await scrypt(new TextEncoder().encode(password), salt, 32, params);
  const ciphertext = aes128ctr(derived.subarray(0, 16), iv, privateKey);
  const mac = keccak256(concatBytes(derived.subarray(16, 32), ciphertext));
  return {
    address: hex(privateKeyToAddress(privateKey)),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: hex(ciphertext),
      cipherparams: { iv: hex(iv) },
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n: params.n, p: params.p, r: params.r, salt: hex(salt) },
      mac: hex(mac),
    },
    id: crypto.randomUUID(),
    version: 3,
  };
}

/** Decrypts a v3 key file object (any scrypt parameters, or pbkdf2 with hmac-sha256). */
export async function decryptKey(file: unknown, password: string): Promise<Uint8Array> {
  const fail = (what: string): NodeError => keyFileError(`unsupported key file: ${what}`);
  const obj = record(file) ?? {};
  if (obj.version !== 3) throw fail('version is not 3');
  const c = record(obj.crypto) ?? record(obj.Crypto);
  if (!c) throw fail('no crypto section');
  if (c.cipher !== 'aes-128-ctr') throw fail(`cipher ${String(c.cipher)}`);
  const kp = record(c.kdfparams);
  const iv = bytesField(record(c.cipherparams)?.iv, 16);
  const ciphertext = bytesField(c.ciphertext);
  const mac = bytesField(c.mac, 32);
  const salt = bytesField(kp?.salt);
  const dklen = intField(kp?.dklen);
  if (!kp || !iv || !ciphertext || !mac || !salt || dklen === undefined || dklen < 32) throw fail('malformed crypto section');
  const pw = new TextEncoder().encode(password);
  let derived: Uint8Array;
  if (c.kdf === 'scrypt') {
    const [n, r, p] = [intField(kp.n), intField(kp.r), intField(kp.p)];
    if (n === undefined || r === undefined || p === undefined || n < 2 || r < 1 || p < 1) throw fail('scrypt parameters');
    derived = await scrypt(pw, salt, dklen, { n, r, p });
  } else if (c.kdf === 'pbkdf2') {
    const rounds = intField(kp.c);
    if (kp.prf !== 'hmac-sha256' || rounds === undefined || rounds < 1 || rounds > MAX_PBKDF2_ROUNDS) throw fail('pbkdf2 parameters');
    derived = await pbkdf2(pw, salt, rounds, dklen);
  } else {
    throw fail(`kdf ${String(c.kdf)}`);
  }
  if (!equalBytes(keccak256(concatBytes(derived.subarray(16, 32), ciphertext)), mac)) throw wrongPassword();
  const key = aes128ctr(derived.subarray(0, 16), iv, ciphertext);
  if (key.length !== 32) throw fail('key length');
  return key;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function bytesField(v: unknown, length?: number): Uint8Array | undefined {
  if (typeof v !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(v)) return undefined;
  const bytes = hexToBytes(v.startsWith('0x') ? v : '0x' + v);
  return length === undefined || bytes.length === length ? bytes : undefined;
}

function intField(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** geth's file name: `UTC--2024-01-02T03-04-05.678Z--<address hex>`. */
export function keyFileName(address: Uint8Array, at = new Date()): string {
  return `UTC--${at.toISOString().replace(/:/g, '-')}--${hex(address)}`;
}

export interface KeystoreEntry {
  address: Uint8Array;
  file: string;
}

export class Keystore {
  constructor(
    readonly dir: string,
    private readonly params: ScryptParams = STANDARD_SCRYPT,
  ) {}

  /** Accounts with a readable key file, oldest file name first (as geth lists them). */
  async list(): Promise<KeystoreEntry[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: KeystoreEntry[] = [];
    const seen = new Set<string>();
    for (const name of names.sort()) {
      // geth skips hidden files and editor backups
      if (name.startsWith('.') || name.endsWith('~')) continue;
      const file = path.join(this.dir, name);
      const address = await readAddress(file);
      if (!address || seen.has(bytesToHex(address))) continue;
      seen.add(bytesToHex(address));
      out.push({ address, file });
    }
    return out;
  }

  async find(address: Uint8Array): Promise<KeystoreEntry | undefined> {
    return (await this.list()).find((e) => equalBytes(e.address, address));
  }

  async newAccount(password: string): Promise<KeystoreEntry> {
    return this.store(randomPrivateKey(), password);
  }

  /**
   * A new account whose address is known at once and whose key file `store()` writes (its key
   * derivation runs in the thread pool). Whoever names the address outside the process must wait
   * for the file.
   */
  createAccount(password: string): { address: Uint8Array; store: () => Promise<KeystoreEntry> } {
    const key = randomPrivateKey();
    return { address: privateKeyToAddress(key), store: () => this.store(key, password) };
  }

  async importKey(privateKey: Uint8Array, password: string): Promise<KeystoreEntry> {
    if (await this.find(privateKeyToAddress(privateKey))) throw alreadyExists('account already exists');
    return this.store(privateKey, password);
  }

  /** The private key of `address`; wrong password → Unauthorized, unknown account → NotFound. */
  async decrypt(address: Uint8Array, password: string): Promise<Uint8Array> {
    const entry = await this.find(address);
    if (!entry) throw noKey();
    const key = await decryptKey(JSON.parse(await fs.readFile(entry.file, 'utf8')), password);
    if (!equalBytes(privateKeyToAddress(key), address)) {
      throw keyFileError(`key content mismatch: have account ${bytesToHex(privateKeyToAddress(key))}, want ${bytesToHex(address)}`);
    }
    return key;
  }

  private async store(privateKey: Uint8Array, password: string): Promise<KeystoreEntry> {
    const json = await encryptKey(privateKey, password, this.params);
    const address = privateKeyToAddress(privateKey);
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, keyFileName(address));
    // Write then rename, so a reader never sees half a key file.
    const tmp = path.join(this.dir, `.${path.basename(file)}.tmp`);
    await fs.writeFile(tmp, JSON.stringify(json), { mode: 0o600 });
    await fs.rename(tmp, file);
    return { address, file };
  }
}

async function readAddress(file: string): Promise<Uint8Array | undefined> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > 64 * 1024) return undefined;
    const obj = record(JSON.parse(await fs.readFile(file, 'utf8')));
    const address = bytesField(obj?.address, 20);
    return address && (record(obj?.crypto) ?? record(obj?.Crypto)) ? address : undefined;
  } catch {
    return undefined;
  }
}
