/** Builds when stale, copies the static assets into the standalone folder; returns that folder. */
export function assembleStandalone(): string;
