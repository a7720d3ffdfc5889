import { loadTokenRegistryFile, type KnownToken, type RiskConfig } from '@tron-safety/core';
import { knownTokensOf, REGISTRY_KNOWN_TOKENS } from '@tron-safety/core/tron';
import { err, ok, type Result } from 'neverthrow';
import type { ConfigError } from './config.js';

/** The host's official tokens: for the risk registry, and as the chain provider's seeded, chain-confirmed tokens. */
export interface HostTokens {
  /** The risk configuration with TOKEN_REGISTRY_FILE's tokens already read into `extraTokens`. */
  risk: RiskConfig;
  knownTokens: readonly KnownToken[];
  /** What the operator should hear about the file's accepted entries (a derivative of a bundled token's name). */
  warnings: readonly string[];
}

/**
 * Reads TOKEN_REGISTRY_FILE once, so the registry the risk side holds payments against and the tokens the
 * chain confirms are the same. A file's tokens are seeded for the chain to confirm (as loaded at `now`):
 * a check uses a file token's seed only once a chain reading agreed with it, and until then reads its
 * metadata from the chain like any token's, so a wrong entry meets the chain's decimals (`TX_FACTS_DISAGREE`)
 * instead of scaling payments. A token the chain contradicts is logged; a bundled token the file restates
 * keeps its bundled seed.
 */
export function hostTokens(risk: RiskConfig, now: Date = new Date()): Result<HostTokens, ConfigError> {
  const path = risk.tokenRegistryFile;
  if (!path) return ok({ risk, knownTokens: REGISTRY_KNOWN_TOKENS, warnings: [] });
  const warnings: string[] = [];
  const tokens = loadTokenRegistryFile(path, { onWarning: (warning) => warnings.push(`${path}: ${warning}`) });
  if (tokens.isErr()) return err({ field: 'TOKEN_REGISTRY_FILE', message: `TOKEN_REGISTRY_FILE: ${tokens.error}` });
  return ok({
    risk: { ...risk, tokenRegistryFile: null, extraTokens: [...(risk.extraTokens ?? []), ...tokens.value] },
    knownTokens: [...REGISTRY_KNOWN_TOKENS, ...knownTokensOf(tokens.value, now)],
    warnings,
  });
}
