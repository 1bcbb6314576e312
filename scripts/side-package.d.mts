export const root: string;
export function isInstalled(dir: string): boolean;
export function ensureSidePackage(relDir: string, opts?: { quiet?: boolean }): string;
