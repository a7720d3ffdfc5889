#!/usr/bin/env node
import { runAdmin } from './admin-cli.js';

runAdmin(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
