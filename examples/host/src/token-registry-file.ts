import { statSync } from 'node:fs';
import { loadTokenRegistryFile, type KnownToken, type RiskConfig } from '@tron-safety/core';
import { knownTokensOf, REGISTRY_KNOWN_TOKENS } from '@tron-safety/core/tron';
import { err, ok, type Result } from 'neverthrow';
import type { ConfigError } from './config.js';

/** The host's official tokens: for the risk registry, and as the chain provider's seeded, chain-confirmed tokens. */
export interface HostTokens {
  /** The risk configuration with TOKEN_REGISTRY_FILE's tokens already read into `extraTokens`. */
  risk: RiskConfig;
  knownTokens: readonly KnownToken[];
}

/**
 * Reads TOKEN_REGISTRY_FILE once, so the registry the risk side holds payments against and the tokens the
 * chain confirms are the same. A file's tokens are seeded like the bundled ones, as of the file's last
 * change (never later than `now`) until the chain confirms them: a cold check of one needs no metadata
 * call, and a token the chain contradicts is logged and read from the chain like any other.
 */
export function hostTokens(risk: RiskConfig, now: Date = new Date()): Result<HostTokens, ConfigError> {
  const path = risk.tokenRegistryFile;
  if (!path) return ok({ risk, knownTokens: REGISTRY_KNOWN_TOKENS });
  const tokens = loadTokenRegistryFile(path);
  if (tokens.isErr()) return err({ field: 'TOKEN_REGISTRY_FILE', message: `TOKEN_REGISTRY_FILE: ${tokens.error}` });
  const changed = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? now.getTime();
  return ok({
    risk: { ...risk, tokenRegistryFile: null, extraTokens: [...(risk.extraTokens ?? []), ...tokens.value] },
    knownTokens: [...REGISTRY_KNOWN_TOKENS, ...knownTokensOf(tokens.value, new Date(Math.min(changed, now.getTime())))],
  });
}
