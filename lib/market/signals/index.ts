/** Pure signal math (no I/O). Import from "@/lib/market/signals". */
export * from "./math";
export * from "./orderbook";
export * from "./sentiment";
export * from "./verdict";
export * from "./arbitrage";
export * from "./backtest";
export * from "./breadth";
export * from "./gas";
export * from "./network";
export * from "./token-safety";
export * from "./whale-flow";
export * from "./prediction";
export * from "./markets-window";
