import { version } from '../package.json';

/** The host's version (its package's). */
export const HOST_VERSION: string = version;

/**
 * `--help` / `--version` of a bin that otherwise takes no arguments: the text to print and exit 0,
 * or an error (exit 64) for anything else, or null to go on and start.
 */
export function simpleFlags(argv: readonly string[], help: string): { out: string; code: 0 | 64 } | null {
  if (argv.length === 0) return null;
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) return { out: help, code: 0 };
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return { out: `${HOST_VERSION}\n`, code: 0 };
  return { out: `unknown arguments: ${argv.join(' ')}\n\n${help}`, code: 64 };
}
