#!/usr/bin/env node
// Placeholder: the emulator issue fills the `svc-sdk` bin (emulator, trigger).
console.error('[svc-sdk] the CLI is not built yet');
process.exitCode = 1;
