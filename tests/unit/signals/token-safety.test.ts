import { describe, expect, it } from "vitest";
import { evmTokenRisk, goplusFlag, goplusNumber, solanaTokenRisk } from "@/lib/market/signals/token-safety";

/** A fully reported, clean GoPlus EVM record. */
const cleanEvm: Record<string, unknown> = {
  is_honeypot: "0",
  is_mintable: "0",
  owner_change_balance: "0",
  is_open_source: "1",
  hidden_owner: "0",
  can_take_back_ownership: "0",
  transfer_pausable: "0",
  is_blacklisted: "0",
  cannot_sell_all: "0",
  slippage_modifiable: "0",
  is_proxy: "0",
  is_in_dex: "1",
  buy_tax: "0",
  sell_tax: "0",
  holder_count: "12345",
  holders: [{ percent: "0.2" }, { percent: "0.1" }], // 30 %
  lp_holders: [
    { percent: "0.9", is_locked: 1 },
    { percent: "0.1", is_locked: 0 },
  ], // 90 % locked
};

describe("goplusFlag / goplusNumber", () => {
  it.each([
    ["1", true],
    [1, true],
    [true, true],
    ["0", false],
    [0, false],
    ["", null],
    [undefined, null],
    ["yes", null],
  ])("flag %j → %s", (v, out) => {
    expect(goplusFlag(v)).toBe(out);
  });
  it.each([
    ["0.05", 0.05],
    [3, 3],
    ["", null],
    ["abc", null],
    [null, null],
  ])("number %j → %s", (v, out) => {
    expect(goplusNumber(v)).toBe(out);
  });
});

describe("evmTokenRisk", () => {
  it("clean token → 0, low_risk, nothing unknown", () => {
    const r = evmTokenRisk(cleanEvm);
    expect(r.score).toBe(0);
    expect(r.verdict).toBe("low_risk");
    expect(r.unknown).toEqual([]);
    expect(r.flags.honeypot).toBe(false);
    expect(r.flags.closedSource).toBe(false);
    expect(r.taxes).toEqual({ buyPct: 0, sellPct: 0 });
    expect(r.topHolderConcentrationPct).toBeCloseTo(30, 10);
    expect(r.lpLockedPct).toBeCloseTo(90, 10);
    expect(r.holderCount).toBe(12345);
  });

  it.each([
    // [overrides, score, verdict] — points in the comment
    [{ is_mintable: "1", is_proxy: "1", transfer_pausable: "1" }, 30, "caution"], // 15 + 5 + 10
    [{ buy_tax: "0.12", sell_tax: "0.15", is_open_source: "0" }, 60, "high_risk"], // 15 + 20 + 25
    [{ buy_tax: "0.10", sell_tax: "0.10" }, 0, "low_risk"], // exactly 10 % is not "high"
    [{ sell_tax: "0.5" }, 40, "high_risk"], // extreme sell tax
    [{ owner_change_balance: "1", hidden_owner: "1", can_take_back_ownership: "1" }, 70, "likely_scam"], // 30+20+20
    [{ is_blacklisted: "1", slippage_modifiable: "1" }, 20, "caution"], // 10 + 10
    [{ is_in_dex: "0" }, 5, "low_risk"],
    [{ cannot_sell_all: "1" }, 25, "caution"],
  ] as const)("%j → %d %s", (over, score, verdict) => {
    const r = evmTokenRisk({ ...cleanEvm, ...over });
    expect(r.score).toBe(score);
    expect(r.verdict).toBe(verdict);
  });

  it("a honeypot is floored at 80 (likely_scam) even with no other findings", () => {
    const r = evmTokenRisk({ ...cleanEvm, is_honeypot: "1" }); // 60 → floor 80
    expect(r.score).toBe(80);
    expect(r.verdict).toBe("likely_scam");
    expect(r.flags.honeypot).toBe(true);
    expect(r.reasons.join(" ")).toMatch(/honeypot/);
  });

  it("a 100 % tax (untradeable) is floored at 80; everything caps at 100", () => {
    expect(evmTokenRisk({ ...cleanEvm, sell_tax: "1" }).score).toBe(80); // 40 → 80
    const worst = evmTokenRisk({
      ...cleanEvm,
      is_honeypot: "1",
      owner_change_balance: "1",
      is_open_source: "0",
      sell_tax: "1",
    });
    expect(worst.score).toBe(100); // 60 + 30 + 25 + 40 = 155 → 100
    expect(worst.taxes.sellPct).toBe(100);
  });

  it("holder concentration and LP lock: 85 % top-10 (+15), 30 % LP locked (+10)", () => {
    const r = evmTokenRisk({
      ...cleanEvm,
      holders: [{ percent: "0.5" }, { percent: "0.35" }],
      lp_holders: [
        { percent: "0.3", is_locked: 1 },
        { percent: "0.6", is_locked: 0 },
      ],
    });
    expect(r.topHolderConcentrationPct).toBeCloseTo(85, 10);
    expect(r.lpLockedPct).toBeCloseTo(30, 10);
    expect(r.score).toBe(25);
    expect(r.verdict).toBe("caution");
  });

  it("moderate concentration (60 %) adds 8", () => {
    expect(evmTokenRisk({ ...cleanEvm, holders: [{ percent: "0.6" }] }).score).toBe(8);
  });

  it("trust list caps the score at 10", () => {
    const usdcLike = evmTokenRisk({ ...cleanEvm, is_mintable: "1", is_proxy: "1", transfer_pausable: "1", is_blacklisted: "1", trust_list: "1" });
    expect(usdcLike.score).toBe(10); // 15 + 5 + 10 + 10 = 40 → 10
    expect(usdcLike.verdict).toBe("low_risk");
    expect(usdcLike.trusted).toBe(true);
  });

  it("missing flags are unknown, not safe: an empty record is floored at caution", () => {
    const r = evmTokenRisk({});
    expect(r.flags.honeypot).toBeNull();
    expect(r.flags.closedSource).toBeNull();
    expect(r.taxes).toEqual({ buyPct: null, sellPct: null });
    expect(r.unknown).toEqual(expect.arrayContaining(["is_honeypot", "is_open_source", "buy_tax", "sell_tax", "holders", "lp_holders"]));
    expect(r.unknown).toHaveLength(16); // 12 flags + 2 taxes + holders + lp_holders
    expect(r.score).toBe(20);
    expect(r.verdict).toBe("caution");
    expect(r.topHolderConcentrationPct).toBeNull();
    expect(r.lpLockedPct).toBeNull();
  });

  it("closed-source record where GoPlus omits most flags", () => {
    const r = evmTokenRisk({ is_open_source: "0", buy_tax: "", sell_tax: "" });
    expect(r.flags.closedSource).toBe(true);
    expect(r.flags.mintable).toBeNull();
    expect(r.score).toBe(25);
    expect(r.verdict).toBe("caution");
  });

  it("LP holders without is_locked → lock unknown", () => {
    expect(evmTokenRisk({ ...cleanEvm, lp_holders: [{ percent: "1" }] }).lpLockedPct).toBeNull();
  });
});

/** A fully reported, clean Solana record. */
const off = { status: "0", authority: [] };
const cleanSol: Record<string, unknown> = {
  mintable: off,
  freezable: off,
  balance_mutable_authority: off,
  closable: off,
  metadata_mutable: off,
  transfer_fee_upgradable: off,
  transfer_hook: [],
  none_transferable: "0",
  default_account_state: "1",
  transfer_fee: {},
  holders: [{ percent: "0.1" }],
  lp_holders: [{ percent: "0.95", is_locked: 1 }],
};
const on = { status: "1", authority: [{ address: "Auth111", malicious_address: 0 }] };

describe("solanaTokenRisk", () => {
  it("clean mint → 0, low_risk", () => {
    const r = solanaTokenRisk(cleanSol);
    expect(r.score).toBe(0);
    expect(r.verdict).toBe("low_risk");
    expect(r.unknown).toEqual([]);
    expect(r.flags.mintAuthority).toBe(false);
    expect(r.flags.freezeAuthority).toBe(false);
    expect(r.transferFeePct).toBe(0); // {} → no fee
    expect(r.taxes).toEqual({ buyPct: 0, sellPct: 0 });
    expect(r.topHolderConcentrationPct).toBeCloseTo(10, 10);
    expect(r.lpLockedPct).toBeCloseTo(95, 10);
  });

  it.each([
    [{ mintable: on, freezable: on, metadata_mutable: on }, 50, "high_risk"], // 20 + 25 + 5
    [{ mintable: on, freezable: on, metadata_mutable: on, transfer_fee: { current_fee_rate: { fee_rate: "0.15" } } }, 70, "likely_scam"], // +20
    [{ transfer_fee: { current_fee_rate: { fee_rate: "0.6" } } }, 40, "high_risk"],
    [{ transfer_fee: { current_fee_rate: { fee_rate: "0.02" } } }, 0, "low_risk"],
    [{ default_account_state: "2" }, 25, "caution"],
    [{ transfer_hook: [{ address: "Hook" }] }, 15, "low_risk"],
    [{ balance_mutable_authority: on }, 30, "caution"],
    [{ closable: on, transfer_fee_upgradable: on }, 20, "caution"], // 10 + 10
  ] as const)("%j → %d %s", (over, score, verdict) => {
    const r = solanaTokenRisk({ ...cleanSol, ...over });
    expect(r.score).toBe(score);
    expect(r.verdict).toBe(verdict);
  });

  it("reports the transfer fee as both taxes", () => {
    const r = solanaTokenRisk({ ...cleanSol, transfer_fee: { current_fee_rate: { fee_rate: "0.15" } } });
    expect(r.transferFeePct).toBeCloseTo(15, 10);
    expect(r.taxes.buyPct).toBeCloseTo(15, 10);
    expect(r.taxes.sellPct).toBeCloseTo(15, 10);
    expect(r.flags.highTransferFee).toBe(true);
  });

  it("non-transferable tokens are floored at 80", () => {
    const r = solanaTokenRisk({ ...cleanSol, none_transferable: "1" }); // 50 → 80
    expect(r.score).toBe(80);
    expect(r.verdict).toBe("likely_scam");
  });

  it("soul-bound (live spelling `non_transferable`) with mint + freeze + mutable metadata → 100 likely_scam", () => {
    const { none_transferable: _, ...live } = cleanSol;
    const r = solanaTokenRisk({ ...live, non_transferable: "1", mintable: on, freezable: on, metadata_mutable: on });
    expect(r.flags.nonTransferable).toBe(true);
    expect(r.unknown).not.toContain("non_transferable");
    expect(r.score).toBe(100); // 50 + 20 + 25 + 5
    expect(r.verdict).toBe("likely_scam");
    expect(r.reasons.join(" ")).toMatch(/non-transferable/);
  });

  it("reads both spellings of the soul-bound flag, the live one first", () => {
    const { none_transferable: _, ...bare } = cleanSol;
    expect(solanaTokenRisk({ ...bare, non_transferable: "1" }).flags.nonTransferable).toBe(true);
    expect(solanaTokenRisk({ ...bare, none_transferable: "1" }).flags.nonTransferable).toBe(true);
    expect(solanaTokenRisk({ ...bare, non_transferable: "0", none_transferable: "1" }).flags.nonTransferable).toBe(false);
    expect(solanaTokenRisk({ ...bare, non_transferable: "", none_transferable: "1" }).flags.nonTransferable).toBe(true);
    const neither = solanaTokenRisk(bare);
    expect(neither.flags.nonTransferable).toBeNull();
    expect(neither.unknown).toContain("non_transferable");
  });

  it("trusted token (USDC: mint + freeze authority) is capped at 10", () => {
    const r = solanaTokenRisk({ ...cleanSol, mintable: on, freezable: on, trusted_token: 1 });
    expect(r.score).toBe(10); // 45 → 10
    expect(r.verdict).toBe("low_risk");
    expect(r.flags.mintAuthority).toBe(true);
    expect(r.flags.freezeAuthority).toBe(true);
  });

  it("an empty record is unknown, floored at caution", () => {
    const r = solanaTokenRisk({});
    expect(r.flags.mintAuthority).toBeNull();
    expect(r.transferFeePct).toBeNull();
    expect(r.unknown).toEqual(expect.arrayContaining(["mintable", "freezable", "transfer_fee", "transfer_hook", "holders"]));
    expect(r.score).toBe(20);
    expect(r.verdict).toBe("caution");
  });
});
