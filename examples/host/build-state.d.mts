/** Why a build is needed (a sentence), or null when every built workspace is newer than its sources. */
export function staleReason(root: string): string | null;
