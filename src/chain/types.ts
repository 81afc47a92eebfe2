// Domain types of the main chain. Below `rpc/` values are bigint and Uint8Array; hex strings
// never appear here.

export type Address = Uint8Array; // 20 bytes
export type Hash = Uint8Array; // 32 bytes

/** The nine unsigned fields of a MOAC transaction, in RLP order. */
export interface TxFields {
  nonce: bigint;
  syscnt: bigint;
  gasPrice: bigint;
  gas: bigint;
  /** null for a contract creation */
  to: Address | null;
  value: bigint;
  data: Uint8Array;
  shardingFlag: bigint;
  /** null when absent (RLP empty string) */
  via: Address | null;
}

/** A signed MOAC transaction with everything derived from it. */
export interface SignedTx extends TxFields {
  v: bigint;
  r: bigint;
  s: bigint;
  /** keccak256(raw) */
  hash: Hash;
  /** the 12-item RLP encoding, exactly as sent to mc_sendRawTransaction */
  raw: Uint8Array;
  /** recovered sender */
  from: Address;
  /** an Ethereum legacy (EIP-155) transaction: `raw` is its 9-item list; syscnt, shardingFlag 0, via null */
  classic?: true;
}

/** The 15-field Ethereum header (docs/chain-rules.md). */
export interface Header {
  parentHash: Hash;
  sha3Uncles: Hash;
  miner: Address;
  stateRoot: Hash;
  transactionsRoot: Hash;
  receiptsRoot: Hash;
  logsBloom: Uint8Array; // 256 bytes
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Hash;
  nonce: Uint8Array; // 8 bytes
}

export interface Log {
  address: Address;
  topics: Hash[];
  data: Uint8Array;
}

export interface Receipt {
  /** 1 success, 0 failure (byzantium and later) */
  status: 0 | 1;
  /** post-transaction state root, for hardforks before byzantium (then status is unused) */
  root?: Hash;
  cumulativeGasUsed: bigint;
  gasUsed: bigint;
  logsBloom: Uint8Array;
  logs: Log[];
  contractAddress: Address | null;
}

export interface Block {
  header: Header;
  hash: Hash;
  transactions: SignedTx[];
  /** RLP size of the whole block in bytes */
  size: number;
}
