/**
 * GoPlus token security (keyless for single tokens). EVM: `/api/v1/token_security/{chainId}`;
 * Solana: `/api/v1/solana/token_security`. Both answer `{code, message, result}` with
 * `result` keyed by the token address (lower-cased for EVM, as given for Solana mints).
 *
 * Conventions kept as they are on the wire: flags are the strings "1"/"0", and a flag
 * that is missing means UNKNOWN (most flags are absent for closed-source contracts), so
 * records are passed on untouched for the risk scoring to interpret. `code` other than 1
 * is an upstream error (2 = partial data, 2004 = bad address, 4029 = rate limited ...).
 * A token GoPlus does not know answers `result: {}`: the adapter returns null.
 *
 * Solana spellings: live answers name the soul-bound flag `non_transferable` and key
 * holder rows by `account`, while GoPlus's published SDK schema says `none_transferable`
 * and `token_account`. Both spellings are declared here (the live one first) and the
 * scorer reads the live one before the schema one.
 */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { cached } from "@/lib/market/cache";
import { fetchJson, upstreamFailure, type Provider } from "@/lib/market/upstream";

export const goplus: Provider = { name: "goplus", baseUrl: () => env().GOPLUS_BASE_URL };

/** GoPlus chain ids of the EVM chains we support. */
export const GOPLUS_EVM_CHAIN_IDS = {
  eth: 1,
  bsc: 56,
  polygon: 137,
  arbitrum: 42161,
  base: 8453,
  optimism: 10,
  avalanche: 43114,
} as const;
export type GoplusEvmChain = keyof typeof GOPLUS_EVM_CHAIN_IDS;

const flag = z.string().optional();
const str = z.string().optional();

const Holder = z
  .object({
    address: str,
    /** Solana, live answers. */
    account: str,
    /** Solana, GoPlus's SDK schema (older answers). */
    token_account: str,
    tag: z.string().nullable().optional(),
    is_contract: z.number().int().optional(),
    balance: str,
    percent: str,
    is_locked: z.number().int().optional(),
    locked_detail: z.array(z.object({ amount: str, end_time: str, opt_time: str }).loose()).nullable().optional(),
  })
  .loose();
export type GoplusHolder = z.infer<typeof Holder>;

const EvmRecord = z
  .object({
    token_name: str,
    token_symbol: str,
    total_supply: str,
    holder_count: str,
    lp_holder_count: str,
    lp_total_supply: str,
    is_open_source: flag,
    is_proxy: flag,
    is_mintable: flag,
    owner_address: str,
    owner_percent: str,
    creator_address: str,
    creator_percent: str,
    can_take_back_ownership: flag,
    owner_change_balance: flag,
    hidden_owner: flag,
    selfdestruct: flag,
    external_call: flag,
    buy_tax: str,
    sell_tax: str,
    cannot_buy: flag,
    cannot_sell_all: flag,
    slippage_modifiable: flag,
    personal_slippage_modifiable: flag,
    is_honeypot: flag,
    transfer_pausable: flag,
    is_blacklisted: flag,
    is_whitelisted: flag,
    is_anti_whale: flag,
    anti_whale_modifiable: flag,
    trading_cooldown: flag,
    is_in_dex: flag,
    trust_list: flag,
    is_airdrop_scam: flag,
    is_true_token: flag,
    note: str,
    other_potential_risks: str,
    dex: z.array(z.object({ name: str, liquidity: str, pair: str }).loose()).nullable().optional(),
    holders: z.array(Holder).nullable().optional(),
    lp_holders: z.array(Holder).nullable().optional(),
  })
  .loose();
export type GoplusEvmRecord = z.infer<typeof EvmRecord>;

const Authority = z.object({ address: str, malicious_address: z.number().int().optional() }).loose();
const AuthorityFlag = z
  .object({ status: flag, authority: z.array(Authority).nullable().optional(), metadata_upgrade_authority: z.array(Authority).nullable().optional() })
  .loose()
  .optional();

const SolanaRecord = z
  .object({
    metadata: z.object({ name: str, symbol: str, description: str, uri: str }).loose().optional(),
    mintable: AuthorityFlag,
    freezable: AuthorityFlag,
    closable: AuthorityFlag,
    balance_mutable_authority: AuthorityFlag,
    metadata_mutable: AuthorityFlag,
    transfer_fee_upgradable: AuthorityFlag,
    transfer_hook_upgradable: AuthorityFlag,
    default_account_state_upgradable: AuthorityFlag,
    default_account_state: str,
    /** Live spelling of the Token-2022 non-transferable (soul-bound) extension flag. */
    non_transferable: flag,
    /** The SDK schema's spelling of the same flag. */
    none_transferable: flag,
    transfer_fee: z
      .object({
        current_fee_rate: z.object({ fee_rate: str, maximum_fee: str }).loose().nullable().optional(),
        scheduled_fee_rate: z.array(z.object({ epoch: str, fee_rate: str, maximum_fee: str }).loose()).nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    transfer_hook: z.array(Authority).nullable().optional(),
    holders: z.array(Holder).nullable().optional(),
    lp_holders: z.array(Holder).nullable().optional(),
    dex: z
      .array(
        z
          .object({
            dex_name: str,
            id: str,
            type: str,
            tvl: str,
            price: str,
            burn_percent: z.number().optional(),
            day: z.object({ volume: str, price_min: str, price_max: str }).loose().nullable().optional(),
          })
          .loose(),
      )
      .nullable()
      .optional(),
    trusted_token: z.number().int().optional(),
    creators: z.array(Authority).nullable().optional(),
  })
  .loose();
export type GoplusSolanaRecord = z.infer<typeof SolanaRecord>;

function envelope<R extends z.ZodType>(record: R) {
  // On errors GoPlus sends `result: null` (or omits it); on success an object keyed by address.
  return z.object({ code: z.number().int(), message: z.string().optional(), result: z.record(z.string(), record).nullable().optional() });
}

function checkCode(code: number, message: string | undefined): void {
  if (code !== 1) upstreamFailure(goplus, `token_security answered code ${code}${message ? ` (${message.slice(0, 120)})` : ""}`);
}

/** Security record of an EVM token; null when GoPlus does not know the token. */
export async function evmTokenSecurity(chain: GoplusEvmChain, address: string): Promise<GoplusEvmRecord | null> {
  const chainId = GOPLUS_EVM_CHAIN_IDS[chain];
  const a = address.toLowerCase();
  return cached(`goplus:evm:${chainId}:${a}`, 300_000, async () => {
    const res = await fetchJson(goplus, `/api/v1/token_security/${chainId}`, { contract_addresses: a }, envelope(EvmRecord));
    checkCode(res.code, res.message);
    const result = res.result ?? {};
    // Keys are lower-case addresses; tolerate a checksummed key just in case.
    const key = Object.keys(result).find((k) => k.toLowerCase() === a);
    return key ? (result[key] ?? null) : null;
  });
}

/** Security record of a Solana SPL mint; null when GoPlus does not know the mint. */
export async function solanaTokenSecurity(mint: string): Promise<GoplusSolanaRecord | null> {
  return cached(`goplus:solana:${mint}`, 300_000, async () => {
    const res = await fetchJson(goplus, "/api/v1/solana/token_security", { contract_addresses: mint }, envelope(SolanaRecord));
    checkCode(res.code, res.message);
    return res.result?.[mint] ?? null;
  });
}
