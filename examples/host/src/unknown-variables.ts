type Env = Record<string, string | undefined>;

/**
 * Prefixes of the host's own variables. A variable under one of them that the host does not read is a
 * typo of one it does (`SANCTIONS_LIST_FILE`), whose setting would silently stay at its default: a
 * blocklist never loaded, and its addresses CLEAR. So such a variable refuses the start.
 */
export const OWN_PREFIXES = [
  'TRON_',
  'CHAINALYSIS_',
  'SANCTION',
  'OFAC_',
  'TOKEN_REGISTRY',
  'RISK_',
  'SAFETY_',
  'DATABASE_',
  'PORTAL_',
];

/** Read by other tools of this repository under those prefixes (the client CLI's), so set beside the host's. */
export const OTHER_TOOLS_VARIABLES = ['TRON_SAFETY_URL', 'TRON_SAFETY_API_KEY'];

/** `env` as read through, with every name read added to `names`: the known set is what the parser reads. */
export function recordingReads(env: Env, names: Set<string>): Env {
  return new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') names.add(name);
      return Reflect.get(target, name) as string | undefined;
    },
  });
}

/**
 * The first variable of `env` under an own prefix that is neither `read` nor another tool's, with the closest
 * known name. An empty one is skipped: empty values count as unset.
 */
export function unknownVariable(env: Env, read: ReadonlySet<string>): { name: string; closest: string } | null {
  const known = [...read, ...OTHER_TOOLS_VARIABLES];
  for (const name of Object.keys(env).sort()) {
    if (!env[name]?.trim() || known.includes(name) || !OWN_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const closest = known.reduce((best, k) => (editDistance(name, k) < editDistance(name, best) ? k : best));
    return { name, closest };
  }
  return null;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
