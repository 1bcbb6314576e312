/**
 * wagmi configuration of the wallet page: Base only, injected wallets (window.ethereum
 * and EIP-6963 announcements), reads through the wallet's own provider so the page
 * never needs a public RPC of its own.
 */
import { createConfig, custom, injected } from "wagmi";
import { base } from "wagmi/chains";

interface Eip1193 {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** The injected provider, if the browser has one. */
export function injectedProvider(): Eip1193 | undefined {
  if (typeof window === "undefined") return undefined;
  return (window as unknown as { ethereum?: Eip1193 }).ethereum;
}

export const TARGET_CHAIN = base;

export function makeWagmiConfig() {
  return createConfig({
    chains: [base],
    connectors: [injected()],
    transports: {
      [base.id]: custom({
        request: async (args: { method: string; params?: unknown }) => {
          const eth = injectedProvider();
          if (!eth) throw new Error("No browser wallet is available.");
          return eth.request(args);
        },
      }),
    },
    ssr: true,
  });
}

export { chainName } from "@/lib/web/chain-name";
