// Local EVM chain for payment tests: chain id 8453 so the CAIP-2 network (eip155:8453)
// and the EIP-712 domain of the test USDC agree, exactly as on Base.
module.exports = {
  solidity: "0.8.26",
  networks: {
    hardhat: {
      chainId: 8453,
      hardfork: "cancun",
      mining: { auto: true, interval: 0 },
      accounts: { count: 10, accountsBalance: "1000000000000000000000" },
      loggingEnabled: false,
    },
  },
};
