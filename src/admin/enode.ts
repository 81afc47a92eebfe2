// enode URLs: `enode://<128 hex node id>@<host>:<port>[?query]`, parsed with the reasons geth
// gives (admin_addPeer answers `invalid enode: <reason>`), and the node's own URL with MOAC's
// VNODE query parameters.

import { isIP } from 'node:net';
import { secp256k1 } from '../chain/secp256k1.js';
import { invalidEnode, type NodeError } from '../errors.js';

export interface Enode {
  /** 64 bytes */
  id: Uint8Array;
  host: string;
  port: number;
  /** the URL normalised: lower-case id, no query */
  url: string;
}

const invalid = (reason: string): NodeError => invalidEnode(reason);

export function parseEnode(text: string): Enode {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/s.exec(text);
  if (!m || m[1].toLowerCase() !== 'enode') throw invalid('invalid URL scheme, want "enode"');
  const rest = m[2];
  const at = rest.indexOf('@');
  if (at < 0) throw invalid('does not contain node ID');
  const idHex = rest.slice(0, at);
  if (!/^[0-9a-fA-F]{128}$/.test(idHex)) throw invalid('invalid public key (want 128 hex digits)');
  const id = Uint8Array.from(Buffer.from(idHex, 'hex'));
  if (!secp256k1().publicKeyVerify(Uint8Array.of(4, ...id))) throw invalid('invalid public key (invalid secp256k1 curve point)');
  const hostPort = rest.slice(at + 1).replace(/[?#].*$/s, '');
  const hp = /^(\[[^\]]*\]|[^:[\]]*):(\d+)$/.exec(hostPort);
  if (!hp) throw invalid(hostPort.includes(':') ? 'invalid port' : 'missing port');
  const host = hp[1].startsWith('[') ? hp[1].slice(1, -1) : hp[1];
  if (!validHost(host, hp[1].startsWith('['))) throw invalid(`invalid host "${host}"`);
  const port = Number(hp[2]);
  if (!Number.isSafeInteger(port) || port < 1 || port > 65535) throw invalid('invalid port');
  const shownHost = isIP(host) === 6 ? `[${host}]` : host;
  return { id, host, port, url: `enode://${idHex.toLowerCase()}@${shownHost}:${port}` };
}

function validHost(host: string, bracketed: boolean): boolean {
  if (bracketed) return isIP(host) === 6;
  if (isIP(host) === 4) return true;
  // DNS names, as newer geth accepts them
  return host.length > 0 && host.length <= 253 && /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/.test(host);
}

export interface OwnEnodeParams {
  id: Uint8Array;
  ip: string;
  port: number;
  serviceCfg: string;
  showToPublic: boolean;
  /** checksummed */
  beneficialAddress: string;
  vnodeIp: string;
}

/** The VNODE's own URL as admin_nodeInfo shows it (docs/methods.md#admin-and-vnode). */
export function formatOwnEnode(p: OwnEnodeParams): string {
  const id = Buffer.from(p.id).toString('hex');
  return (
    `enode://${id}@${p.ip}:${p.port}?servicecfgport=${p.serviceCfg}&showtopublic=${p.showToPublic}` +
    `&beneficialaddress=${p.beneficialAddress}&ip=${p.vnodeIp}`
  );
}
