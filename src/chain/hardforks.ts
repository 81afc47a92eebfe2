// The hardforks the node can run its EVM under (`chain.hardfork`), oldest first. The config table
// offers exactly these; the call interpreter implements exactly these; the conformance runner maps
// the state tests' fork names onto them.

export const HARDFORKS = [
  'chainstart', 'homestead', 'tangerineWhistle', 'spuriousDragon', 'byzantium', 'constantinople',
  'petersburg', 'istanbul', 'muirGlacier', 'berlin', 'london',
] as const;

export type Hardfork = (typeof HARDFORKS)[number];

export function isHardfork(name: string): name is Hardfork {
  return (HARDFORKS as readonly string[]).includes(name);
}
