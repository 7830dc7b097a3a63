// Runs one child process with a deadline and captures its output: every runtime of the matrix,
// npm and the packaging tools go through here, so a hung runtime fails its row instead of the stage.
import { spawn } from 'node:child_process';

/**
 * Runs `command args` and resolves with `{ code, signal, stdout, stderr, timedOut }`; never rejects.
 * The child leads its own process group, so a timeout ends it and whatever it started (a browser).
 */
export function run(command, args, { cwd, env, timeoutMs = 120_000, input } = {}) {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let child;
    try {
      child = spawn(command, args, {
        cwd,
        env: env ?? process.env,
        detached: true,
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      resolve({ code: null, signal: null, stdout, stderr: String(error), timedOut });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    if (input !== undefined) child.stdin.end(input);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: stderr + String(error), timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Ends a process group this stage started (by its leader's id), ignoring one that is gone. */
export function killGroup(pid) {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
/** npm prints a warning per unknown key of the machine's npmrc (and, under `npm run`, of the npm_config_* it exports); drop that noise. */
/** npm prints a warning per unknown key of the machine's npmrc; drop that noise from diagnostics. */
export function quietNpm(text) {
  return text
    .split('\n')
    .filter((line) => !/Unknown (user|global|project|env) config/.test(line))
    .join('\n')
    .trim();
}

/** The last lines of a long output, for a failed row's diagnostics. */
export function tail(text, lines = 25) {
  const all = text.trim().split('\n');
  return all.slice(-lines).join('\n');
}

/** Reads the `SCENARIO_RESULT {json}` line a scenario entry prints when every assertion held. */
export function scenarioResult(stdout) {
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('SCENARIO_RESULT '));
  return line ? JSON.parse(line.slice('SCENARIO_RESULT '.length)) : undefined;
}
