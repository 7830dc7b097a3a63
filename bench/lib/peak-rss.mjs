// A child process's own peak RSS, for the benches that run each case in a fresh process.
import { readFileSync } from 'node:fs';

/**
 * This process's peak resident set in KiB: Linux's VmHWM (the high-water mark of the address space
 * this process got at exec), else `process.resourceUsage().maxRSS`.
 *
 * Not maxRSS on Linux: a child spawned by Node is forked, and the kernel carries the fork's resident
 * set (the parent's, all of it) into the child's maxRSS across exec, so maxRSS is at least the
 * parent's RSS at spawn time. Under `npm run bench`, whose process has run the other sections first,
 * that floor (160-190 MB) hid the case's own peak.
 */
export function peakRssKiB() {
  try {
    const match = /^VmHWM:\s*(\d+)\s*kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // No procfs (macOS, Windows): maxRSS, which those kernels do not inherit across exec the same way.
  }
  return process.resourceUsage().maxRSS;
}
