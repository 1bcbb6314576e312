export function ensureBuild(): void;
export function buildIsFresh(): boolean;
