#!/usr/bin/env node
// `tron-safety`: one check (or the usage report) from a shell or a script; see `tron-safety --help`.
import { runCli } from './cli/run.js';

runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tron-safety: crashed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
