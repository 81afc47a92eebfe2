// vnode_* (docs/methods.md#admin-and-vnode): the VNODE settings an SCS and the client library ask for.

import { bytesToHex } from '../../encoding/hex.js';
import { method } from '../params.js';
import type { RpcMethod } from '../types.js';

export interface VnodeInfo {
  /** beneficial address: config vnode.address, else the first dev account, else zero */
  address: Uint8Array;
  scsService: boolean;
  /** `[host]:port`, e.g. ":50062" */
  serviceCfg: string;
  showToPublic: boolean;
  ip: string;
}

export function vnodeMethods(info: VnodeInfo): Record<string, RpcMethod> {
  return {
    vnode_address: method([], () => bytesToHex(info.address)),
    vnode_scsService: method([], () => info.scsService),
    vnode_serviceCfg: method([], () => info.serviceCfg),
    vnode_showToPublic: method([], () => info.showToPublic),
    vnode_vnodeIP: method([], () => info.ip),
  };
}
