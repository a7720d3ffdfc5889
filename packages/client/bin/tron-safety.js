#!/usr/bin/env node
// The `tron-safety` bin: a committed launcher (npm links a workspace's bin only if its file exists
// at install time, before any build) that runs the built CLI.
import('../dist/cli.js').catch((error) => {
  const unbuilt = error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js');
  process.stderr.write(unbuilt ? 'tron-safety: not built yet: run `npm run build`\n' : `${error?.stack ?? error}\n`);
  process.exitCode = 2;
});
