// The README harness: writes each code block into a throwaway consumer project where `svc-sdk`
// resolves to this package as npm would install it (its `exports` over the built dist/),
// type-checks all blocks in one TypeScript program per compiler setting, and runs the blocks
// marked `<!-- run -->` against the emulator. Every problem is reported at its line in the document.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { cp, mkdtemp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/** The settings every block must compile under: the strictest a user may have, plus one per resolution mode. */
const STRICTEST = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  moduleDetection: 'force',
  allowJs: true,
  checkJs: true,
  noEmit: true,
  // Declaration files are not checked: checking every library's (express, redis, msw, @types/node)
  // took 3.5 times as long as the blocks themselves, and the package's own declarations are checked
  // with skipLibCheck off by the TypeScript row of the runtime matrix (npm run test:runtimes).
  skipLibCheck: true,
  target: 'es2023',
  lib: ['es2023', 'dom', 'dom.iterable'],
  types: ['node'],
};

/** The module settings checked, each as its own TypeScript program over all blocks. */
export const SETTINGS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

/**
 * Makes a consumer project in the system's temp directory: `package.json` of an ES module
 * package, and a `node_modules` holding this package as `svc-sdk` (its package.json and built
 * dist/) next to links to every package of the repository's `node_modules` and of the test tools'
 * `test/node_modules` (the peers, fastify and @types that blocks and examples import).
 *
 * @param {string} root the repository (the package's own directory)
 * @param {{ first?: string[] }} [options] node_modules folders whose packages win over the root's
 *   (test/types-latest/node_modules: the latest @types/node and the framework types built on it)
 */
export async function createConsumer(root, { first = [] } = {}) {
  const sources = [...first, path.join(root, 'node_modules'), path.join(root, 'test', 'node_modules')];
  const absent = sources.find((source) => !existsSync(source));
  if (absent) throw new Error(`${path.relative(root, absent)} is missing: run \`npm install\` and \`npm run test:deps\``);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-sdk-readme-'));
  const modules = path.join(dir, 'node_modules');
  await mkdir(modules);
  // The root install's packages first; a name both installs hold is linked once, from the root.
  const linked = new Set(['svc-sdk', '@svc-sdk']);
  for (const source of sources) {
    for (const entry of await readdir(source)) {
      if (entry.startsWith('.') || linked.has(entry)) continue;
      linked.add(entry);
      await symlink(path.join(source, entry), path.join(modules, entry), 'junction');
    }
  }
  // A copy of the package as npm installs it (package.json and dist/), not a link: a build started
  // meanwhile (tsup empties dist/ first) cannot pull the files from under the running blocks.
  const installed = path.join(modules, 'svc-sdk');
  for (let attempt = 1; ; attempt++) {
    await rm(installed, { recursive: true, force: true });
    await mkdir(installed);
    await cp(path.join(root, 'package.json'), path.join(installed, 'package.json'));
    await cp(path.join(root, 'dist'), path.join(installed, 'dist'), { recursive: true });
    const missing = exportTargets(JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')).exports)
      .filter((target) => !existsSync(path.join(installed, target)));
    if (missing.length === 0) break;
    // Copied while a build was writing dist/: wait for it to finish.
    if (attempt === 5) throw new Error(`dist/ lacks ${missing.join(', ')}: run \`npm run build\``);
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  // The tool packages (@svc-sdk/mcp, @svc-sdk/cli) copied the same way, so that their `svc-sdk` is this copy.
  for (const name of ['mcp', 'cli']) {
    const tool = path.join(modules, '@svc-sdk', name);
    await mkdir(tool, { recursive: true });
    await cp(path.join(root, 'packages', name, 'package.json'), path.join(tool, 'package.json'));
    await cp(path.join(root, 'packages', name, 'dist'), path.join(tool, 'dist'), { recursive: true });
  }
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'readme-blocks', private: true, type: 'module' })}\n`);
  return dir;
}

/** Every file a package.json `exports` map points at. */
function exportTargets(exports) {
  if (typeof exports === 'string') return [exports];
  return Object.values(exports ?? {}).flatMap(exportTargets);
}

/**
 * Writes each block to its own file in `dir`; returns the blocks with their `file` set.
 *
 * @param {Array<{ source: string, line: number, extension: string, code: string }>} blocks
 */
export async function writeBlocks(blocks, dir) {
  const written = [];
  for (const block of blocks) {
    const name = `${path.basename(block.source, path.extname(block.source)).toLowerCase()}-L${block.line}${block.extension}`;
    const file = path.join(dir, name);
    await writeFile(file, block.code);
    written.push({ ...block, file });
  }
  return written;
}

/** `README.md:123:5` for a position in a block's file, or the file's own position for other files. */
function locate(blocks, fileName, position) {
  const block = blocks.find((candidate) => path.resolve(candidate.file) === path.resolve(fileName));
  if (!block) return `${fileName}:${position.line + 1}:${position.character + 1}`;
  return `${block.source}:${block.line + position.line}:${position.character + 1}`;
}

/**
 * Type-checks every block in one program per setting; returns one message per problem, each
 * starting with the document's file and line.
 */
export function typeCheck(blocks, dir, { options: extra = {}, label = '', files = [], onlyAbout, settings = SETTINGS } = {}) {
  const problems = [];
  // Both programs read the same default library files (lib.dom.d.ts is 1.5 MB): parse them once.
  // Other files are parsed per program, since module settings change how they are bound.
  const libDir = path.dirname(ts.getDefaultLibFilePath({}));
  const parsed = new Map();
  for (const [name, setting] of Object.entries(settings)) {
    const { options, errors } = ts.convertCompilerOptionsFromJson({ ...STRICTEST, ...setting, ...extra }, dir);
    if (errors.length) throw new Error(ts.formatDiagnostics(errors, formatHost(dir)));
    const host = ts.createCompilerHost(options);
    // `types: ['node']` resolves from the current directory: the consumer's, not the repository's
    // (whose node_modules/@types/node is the pinned one, whatever the consumer links).
    host.getCurrentDirectory = () => dir;
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, ...rest) => {
      if (path.dirname(fileName) !== libDir) return getSourceFile(fileName, languageVersion, ...rest);
      if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, languageVersion, ...rest));
      return parsed.get(fileName);
    };
    const program = ts.createProgram({ rootNames: [...blocks.map((block) => block.file), ...files], options, host });
    const nodeTypes = typesNodeVersions(program);
    if (nodeTypes.length !== 1) problems.push(`(program) [${name}${label}]: expected one @types/node in the program, found ${nodeTypes.join(', ') || 'none'}`);
    const about = onlyAbout?.(program);
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
      if (about && !about.some((name) => new RegExp(`\\b${name}\\b`).test(message))) continue;
      const where = diagnostic.file && diagnostic.start !== undefined
        ? locate(blocks, diagnostic.file.fileName, diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start))
        : '(options)';
      problems.push(`${where}: [${name}${label}] TS${diagnostic.code}: ${message}`);
    }
  }
  return problems;
}

/**
 * The names the package's declaration files (node_modules/svc-sdk/dist) declare at their top level:
 * with `onlyAbout`, a check of plain JavaScript keeps the problems that name one of them (how the
 * code uses svc-sdk), not those only TypeScript annotations would fix (`server.address().port`).
 */
export function packageTypeNames(program) {
  const names = new Set();
  for (const file of program.getSourceFiles()) {
    if (!/[\\/]node_modules[\\/]svc-sdk[\\/]dist[\\/]/.test(file.fileName)) continue;
    for (const statement of file.statements) {
      const declared = statement.name?.text ?? (ts.isVariableStatement(statement) ? statement.declarationList.declarations.map((d) => d.name.getText(file)) : []);
      for (const name of [declared].flat()) if (/^[A-Za-z_$][\w$]*$/.test(name) && name.length > 3) names.add(name);
    }
  }
  return [...names];
}

/**
 * The versions of @types/node a program read: one, or two copies' declarations merge (their
 * overloads side by side) and hide what either alone would report.
 */
export function typesNodeVersions(program) {
  const versions = new Set();
  for (const { fileName } of program.getSourceFiles()) {
    const at = fileName.lastIndexOf('/@types/node/');
    if (at === -1) continue;
    const manifest = path.join(realpathSync(fileName.slice(0, at + '/@types/node'.length)), 'package.json');
    versions.add(JSON.parse(readFileSync(manifest, 'utf8')).version);
  }
  return [...versions];
}

function formatHost(dir) {
  return { getCanonicalFileName: (name) => name, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
}

/**
 * Runs the blocks marked to run, one after another, each in its own Node process in `dir` with
 * `env` added (the emulator's SVC_BASE_URL and SVC_API_KEY). Returns one message per failure;
 * stack frames in the blocks' files are rewritten to lines of the document.
 */
export async function runBlocks(blocks, dir, env, { timeoutMs = 20_000 } = {}) {
  const failures = [];
  for (const block of blocks.filter((candidate) => candidate.run)) {
    const result = await runNode(block.file, dir, env, timeoutMs);
    if (result.code === 0) continue;
    const output = `${result.stderr}${result.stdout}`.trim().split('\n').slice(-20).join('\n    ');
    const reason = result.timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited with code ${result.code}`;
    failures.push(`${block.source}:${block.line}: the block ${reason}:\n    ${mapFrames(output, blocks)}`);
  }
  return failures;
}

function mapFrames(text, blocks) {
  let mapped = text;
  for (const block of blocks) {
    for (const prefix of [`file://${block.file}`, block.file]) {
      mapped = mapped.replaceAll(new RegExp(`${escapeRegExp(prefix)}:(\\d+)`, 'g'), (_, line) => `${block.source}:${block.line + Number(line) - 1}`);
    }
  }
  return mapped;
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs the examples named (files of examples/, as `EXAMPLES` in examples.mjs says), copied into the
 * consumer project so that they import the same copy of the package as the blocks. Without
 * SVC_BASE_URL and SVC_API_KEY, so that they start their own emulator. Returns one message per
 * failure and the examples skipped, with why.
 */
export async function runExamples(names, examples, root, dir, { timeoutMs = 60_000 } = {}) {
  const failures = [];
  const skipped = [];
  await cp(path.join(root, 'examples'), path.join(dir, 'examples'), { recursive: true });
  const env = { ...process.env };
  delete env.SVC_BASE_URL;
  delete env.SVC_API_KEY;
  for (const name of names) {
    const how = examples[name];
    if (!how) {
      failures.push(`examples/${name}: linked from the documents, but test/readme/examples.mjs does not say how to run it`);
      continue;
    }
    if (how.skip) {
      skipped.push(`examples/${name} (${how.skip})`);
      continue;
    }
    const result = await runNode(path.join(dir, 'examples', name), dir, { ...env, ...how.env }, timeoutMs, how.args);
    if (result.code === 0) continue;
    const output = `${result.stderr}${result.stdout}`.trim().split('\n').slice(-15).join('\n    ');
    const reason = result.timedOut ? `did not finish within ${timeoutMs / 1000} s` : `exited with code ${result.code}`;
    failures.push(`examples/${name} ${how.args.join(' ')}: ${reason}:\n    ${output}`);
  }
  return { failures, skipped };
}

function runNode(file, cwd, env, timeoutMs, args = []) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr, timedOut });
    });
  });
}

/** Removes the consumer project. */
export async function removeConsumer(dir) {
  await rm(dir, { recursive: true, force: true });
}
