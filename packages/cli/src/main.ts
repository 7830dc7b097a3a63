#!/usr/bin/env node
// The `svc-sdk` bin (dist/cli.js). Each command is a module in ./commands; this file only runs one.
import { COMMANDS } from './commands/index.js';
import { runCli } from './run.js';

void runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }, COMMANDS).then((code) => {
  // Exit now: idle keep-alive sockets (fetch's, the emulator's) would hold the process a few more
  // seconds. stdout and stderr are synchronous for files and pipes on POSIX, so nothing is lost.
  process.exit(code);
});
