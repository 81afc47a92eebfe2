// The dev accounts of the default mnemonic (config/devnet.json), m/44'/314'/0'/0/0 … 9: private
// key and address. A table because deriving them cost every start ~25 ms (PBKDF2 and keccak
// before the code is warm); test/unit/accounts/keys.test.ts derives them again and compares.
// Public test keys: never use them on a real network.

import { hexToBytes } from '../encoding/hex.js';

export const DEFAULT_DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export const defaultDevAccounts: readonly (readonly [privateKey: Uint8Array, address: Uint8Array])[] = [
  ['d318c56399426da38a80a354c89780d05ed2650017a63768e1b9cab0957de817', 'c4c4fb5146a694d58521b4a135564765b6cec4fa'],
  ['44526d42a0c4e822f20f0625e0585338e69565d61275264d8b1dcd7d78daa681', 'b46660faca84cbd3e790216dd75a9a9eede7f178'],
  ['48b57e7f9d653fbc6926f192c6ca7734b66efa3435740e8a8b1bef7e7a95333b', 'f2e8267e788c835e2f91354d3c1fbc4c7836ccf0'],
  ['78b089aa52fad9b8518ae632765cafd9f773ba11dafe18fbd92e4507a3cb8170', '1b0f2793980845731f79b58a98e8fe01e20ce551'],
  ['a00b26cc5a2641c3e4a23374958a353a55f48d9227a8a1463ab65c6f8dc470f1', '6931f22fa238fba5dfe1c5cbc175acf8458a1a7b'],
  ['b22129200659681f018b59fd64abc04d504ce6f848370a6c1126ed1837528eb7', 'f8fecfb8f56280610bf247c35e0e7045b15f8576'],
  ['628c2272984a86f965566173134fe641f683abd22b815b272960603230d9d5be', '1c3b941ae2ed3a92f862352de68a943a76249137'],
  ['bb205fd985073713b5af39822d06d34d1cd0f366dcfe1f5de5a7d25268b4d134', '301de5b8d7c83dec13c2e018ae7cfb9c890efa82'],
  ['9ea06d3b1f1311e4658f23c002df9614e8551872d5b68139d2ae62a1b99838cf', 'c17a3e993e532c18c1f106276c1021a68ea0d386'],
  ['5be2f597413e4132059063305eb29735fe4d4e5f38be1847e1dd62ab1ee7856e', 'ca39a4988eae829953e9845bbb092c02cef0d697'],
].map(([key, address]) => [hexToBytes(`0x${key}`), hexToBytes(`0x${address}`)] as const);
