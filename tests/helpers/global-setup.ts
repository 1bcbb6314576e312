// Builds the Next app once before the integration tests (skipped when up to date).
export default async function setup(): Promise<void> {
  const { ensureBuild } = (await import("../../scripts/start.mjs")) as { ensureBuild: () => void };
  ensureBuild();
}
