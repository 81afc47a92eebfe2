// The function and event signatures the explorer names without being told: ERC-20, ERC-721 and
// Multicall. `explorer.signatures` adds the user's own (docs/explorer.md#decoded-input).

export const BUILTIN_FUNCTIONS: readonly string[] = [
  // ERC-20
  'transfer(address,uint256)', 'transferFrom(address,address,uint256)', 'approve(address,uint256)',
  'balanceOf(address)', 'allowance(address,address)', 'totalSupply()', 'decimals()', 'symbol()', 'name()',
  'mint(address,uint256)', 'burn(uint256)', 'burnFrom(address,uint256)', 'increaseAllowance(address,uint256)', 'decreaseAllowance(address,uint256)',
  // ERC-721
  'safeTransferFrom(address,address,uint256)', 'safeTransferFrom(address,address,uint256,bytes)', 'setApprovalForAll(address,bool)',
  'ownerOf(uint256)', 'getApproved(uint256)', 'isApprovedForAll(address,address)', 'tokenURI(uint256)', 'supportsInterface(bytes4)',
  // Multicall (1, 2, 3)
  'aggregate((address,bytes)[])', 'tryAggregate(bool,(address,bytes)[])', 'blockAndAggregate((address,bytes)[])',
  'tryBlockAndAggregate(bool,(address,bytes)[])', 'aggregate3((address,bool,bytes)[])', 'aggregate3Value((address,bool,uint256,bytes)[])',
  // WMOAC / WETH-style wrappers
  'deposit()', 'withdraw(uint256)',
];

export const BUILTIN_EVENTS: readonly string[] = [
  'Transfer(address,address,uint256)', 'Approval(address,address,uint256)', 'ApprovalForAll(address,address,bool)',
  'Deposit(address,uint256)', 'Withdrawal(address,uint256)',
];
