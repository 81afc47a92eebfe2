// The built-in explorer's files on the HTTP endpoint (docs/explorer.md): static assets from the
// package's explorer/ folder under /explorer, plus /explorer/config.json, which tells the page the
// function, event and console.log signatures it decodes (selectors computed here, once). The page
// reads the node only through its JSON-RPC, like any client; nothing is fetched from elsewhere
// (the Content-Security-Policy says so to the browser too).

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keccak256 } from '../encoding/bytes.js';
import { bytesToHex } from '../encoding/hex.js';
import { consoleSignatures } from '../execution/consoleDecode.js';
import { BUILTIN_EVENTS, BUILTIN_FUNCTIONS } from './explorerSignatures.js';

export const EXPLORER_PATH = '/explorer';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

/** Same-origin only: scripts, styles, images and connections (HTTP and the WebSocket) to this endpoint. */
const SECURITY_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The package's explorer/ folder: beside src/ and dist/, found from wherever this module runs. */
export function explorerAssetDir(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'explorer');
    if (existsSync(path.join(candidate, 'index.html'))) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}

interface Asset {
  body: Buffer;
  type: string;
}

const selectorOf = (signature: string) => bytesToHex(keccak256(new TextEncoder().encode(signature)).subarray(0, 4));

export class ExplorerSite {
  private readonly assets = new Map<string, Asset>();

  /** Loads the assets once (a few tens of kilobytes); `signatures`: the user's extra function signatures. */
  constructor(dir: string, signatures: readonly string[], extra: Record<string, unknown> = {}) {
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const file = path.join(dir, name);
      const type = TYPES[path.extname(name)];
      if (type && statSync(file).isFile()) this.assets.set('/' + name.split(path.sep).join('/'), { body: readFileSync(file), type });
    }
    const functions = Object.fromEntries([...BUILTIN_FUNCTIONS, ...signatures].map((s) => [selectorOf(s), s]));
    const events = Object.fromEntries(BUILTIN_EVENTS.map((s) => [bytesToHex(keccak256(new TextEncoder().encode(s))), s]));
    const config = { functions, events, console: consoleSignatures(), ...extra };
    this.assets.set('/config.json', { body: Buffer.from(JSON.stringify(config)), type: TYPES['.json'] });
  }

  /** Serves GET/HEAD under /explorer; false when the path is not the explorer's. */
  serve(req: IncomingMessage, res: ServerResponse, urlPath: string): boolean {
    if (urlPath !== EXPLORER_PATH && !urlPath.startsWith(EXPLORER_PATH + '/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const rest = urlPath.slice(EXPLORER_PATH.length);
    if (rest === '') {
      // The page's relative asset URLs resolve against /explorer/.
      res.writeHead(301, { Location: EXPLORER_PATH + '/', 'Content-Length': 0 }).end();
      return true;
    }
    const asset = this.assets.get(rest === '/' ? '/index.html' : rest);
    if (!asset) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('not found\n');
      return true;
    }
    res.writeHead(200, { 'Content-Type': asset.type, 'Content-Length': asset.body.length, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  }
}
