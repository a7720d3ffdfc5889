import { parseArgs } from 'node:util';
import { err, ok, type Result } from 'neverthrow';
import { isIdempotencyKey } from '../idempotency-key.js';

/** A command line as the CLI understood it; an error is exit code 64. */
export type Command =
  | { kind: 'help' }
  | { kind: 'version' }
  | {
      kind: 'check';
      txHash: string;
      recipient?: string;
      token?: string;
      amount?: string;
      idempotencyKey?: string;
      json: boolean;
      insecureHttp: boolean;
    }
  | { kind: 'usage'; days?: number; json: boolean; insecureHttp: boolean };

export const USAGE = `Usage:
  tron-safety check <tx_hash> [--recipient ADDRESS] [--token CONTRACT] [--amount AMOUNT]
                              [--idempotency-key KEY] [--json] [--insecure-http]
  tron-safety usage [--days N] [--json] [--insecure-http]
  tron-safety --help | --version

Checks one TRON transaction with the safety API before a payment is booked, or shows the
organization's quota and recent usage.

Options:
  --recipient ADDRESS      expected recipient (base58 T… address)
  --token CONTRACT         expected TRC20 token contract (compared exactly, never by symbol)
  --amount AMOUNT          expected amount (decimal string): of the --token, or of TRX without one
  --idempotency-key KEY    resend a check whose outcome was unknown, with the key it printed
  --days N                 usage period in whole days (1 to 90, default 30)
  --json                   print the API's JSON body as received (on a terminal, control
                           characters as JSON escapes)
  --insecure-http          send the API key to a plain http TRON_SAFETY_URL on another host
                           (in clear: without this flag only https, or http to localhost,
                           127.x.x.x or [::1], is used)
  -h, --help               this text
  -V, --version            the client's version

Environment:
  TRON_SAFETY_URL          the API's base URL (default http://127.0.0.1:8080)
  TRON_SAFETY_API_KEY      the organization's API key (sent as X-API-Key)

Exit codes:
  0   check: CLEAR and safe to book by every rule of isSafeToBook, which needs --recipient
      and --amount verified (usage: answered)
  1   check: any other answer (REVIEW, HIGH_RISK, LIMITED_DATA, or a CLEAR not safe to book)
  2   an API error, or the service unreachable or unreadable
  64  wrong command line (a plain http TRON_SAFETY_URL to another host without
      --insecure-http included)
`;

/** The spec's `days` of `GET /v1/usage` (Limits): an integer from 1 to 90. */
const MAX_USAGE_DAYS = 90;

const OPTIONS = {
  recipient: { type: 'string' },
  token: { type: 'string' },
  amount: { type: 'string' },
  'idempotency-key': { type: 'string' },
  days: { type: 'string' },
  json: { type: 'boolean', default: false },
  'insecure-http': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'V', default: false },
} as const;

export function parseCommand(argv: readonly string[]): Result<Command, string> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return err((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return ok({ kind: 'help' });
  if (values.version) return ok({ kind: 'version' });
  const [command, ...rest] = positionals;
  if (command === 'check') return checkCommand(rest, values);
  if (command === 'usage') return usageCommand(rest, values);
  return err(command === undefined ? 'a command is required (check or usage)' : `unknown command '${command}'`);
}

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function checkCommand(rest: string[], values: Values): Result<Command, string> {
  if (rest.length !== 1) return err('check takes exactly one <tx_hash>');
  if (values.days !== undefined) return err('--days belongs to usage');
  const key = values['idempotency-key'];
  // An empty or unsendable key would otherwise become a new one: a second, billed check.
  if (key !== undefined && !isIdempotencyKey(key)) {
    return err('--idempotency-key must be 1 to 128 printable ASCII characters, without a space at either end');
  }
  const { recipient, token, amount } = values;
  return ok({
    kind: 'check',
    txHash: rest[0]!,
    ...(recipient !== undefined ? { recipient } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(amount !== undefined ? { amount } : {}),
    ...(values['idempotency-key'] !== undefined ? { idempotencyKey: values['idempotency-key'] } : {}),
    json: values.json,
    insecureHttp: values['insecure-http'],
  });
}

function usageCommand(rest: string[], values: Values): Result<Command, string> {
  if (rest.length !== 0) return err('usage takes no arguments');
  const checkOnly = ['recipient', 'token', 'amount', 'idempotency-key'] as const;
  const misplaced = checkOnly.find((name) => values[name] !== undefined);
  if (misplaced) return err(`--${misplaced} belongs to check`);
  const days = values.days === undefined ? undefined : daysOf(values.days);
  if (days === null) return err(`--days must be a whole number from 1 to ${MAX_USAGE_DAYS}, got '${values.days}'`);
  return ok({
    kind: 'usage',
    json: values.json,
    insecureHttp: values['insecure-http'],
    ...(days !== undefined ? { days } : {}),
  });
}

/** The period the service would accept, or null: refused here rather than sent for a 422. */
function daysOf(text: string): number | null {
  const days = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  return days >= 1 && days <= MAX_USAGE_DAYS ? days : null;
}
