/** Builds when stale, copies the static assets into the standalone folder and bundles its entry (serve.js); returns that folder. */
export function assembleStandalone(): string;
