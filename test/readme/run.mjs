// `npm run test:readme`: every TypeScript/JavaScript block of README.md and CONTRIBUTING.md
// type-checks as pasted under the strictest settings (nodenext and bundler), the blocks marked
// `<!-- run -->` run against the emulator, links within the repository lead somewhere, and the
// examples they link to run (test/readme/examples.mjs says how). Needs `npm run build` first (blocks import the built package).
//   node test/readme/run.mjs [doc.md ...]    other documents (default: README.md CONTRIBUTING.md)
//   KEEP_README_BLOCKS=1                     keep the consumer project and print where it is
import { existsSync, readFileSync } from 'node:fs';
import { cp, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractBlocks } from './extract.mjs';
import { checkLinks } from './links.mjs';
import { EXAMPLES, linkedExamples } from './examples.mjs';
import { createConsumer, packageTypeNames, removeConsumer, runBlocks, runExamples, SETTINGS, typeCheck, writeBlocks } from './harness.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const documents = process.argv.slice(2).length ? process.argv.slice(2) : ['README.md', 'CONTRIBUTING.md'];
const started = performance.now();

if (!existsSync(path.join(root, 'dist', 'index.js'))) {
  console.error('test:readme: dist/ is missing: run `npm run build` first');
  process.exit(1);
}

const texts = documents.map((document) => {
  const file = path.resolve(root, document);
  return { source: path.relative(root, file) || document, markdown: readFileSync(file, 'utf8') };
});
const blocks = texts.flatMap(({ markdown, source }) => extractBlocks(markdown, source));
// Links that stay in the repository: anchors name a heading, files exist.
const brokenLinks = texts.flatMap(({ markdown, source }) => checkLinks(markdown, source, root));
for (const problem of brokenLinks) console.error(problem);
const dir = await createConsumer(root);
// The same blocks and examples against the latest @types/node (what `npm i -D @types/node` gives a
// user) with the Express and Fastify types built on it: a consumer of its own whose node_modules
// takes those first, checked with preserveSymlinks so that every package's types resolve @types/node
// there (through the links), never the root's pinned copy beside it.
const NODENEXT = { nodenext: SETTINGS.nodenext };
const LATEST = path.join(root, 'test', 'types-latest', 'node_modules');
if (!existsSync(path.join(LATEST, '@types', 'node'))) {
  console.error('test:readme: test/types-latest/node_modules is missing: run `node scripts/install-deps.mjs test/types-latest --legacy-peer-deps` (npm run test:readme does)');
  process.exit(1);
}
const latestDir = await createConsumer(root, { first: [LATEST] });
let failed;
try {
  const written = await writeBlocks(blocks, dir);
  const exampleList = await exampleFiles(dir);
  const latestLabel = `, @types/node ${JSON.parse(readFileSync(path.join(LATEST, '@types', 'node', 'package.json'), 'utf8')).version}`;
  const latest = { options: { preserveSymlinks: true }, label: latestLabel };
  const problems = [
    ...typeCheck(written, dir),
    ...typeCheck(await writeBlocks(blocks, latestDir), latestDir, latest),
    // examples/ are plain JavaScript: checked for how they use svc-sdk (a problem that names one of its
    // types, such as NodeRequestLike), not for the annotations only TypeScript code can carry.
    // Node programs: nodenext alone (the bundler setting adds time and nothing for them).
    ...typeCheck([], dir, { files: exampleList, onlyAbout: packageTypeNames, settings: NODENEXT, label: ', examples' }),
    ...typeCheck([], latestDir, { files: await exampleFiles(latestDir), onlyAbout: packageTypeNames, settings: NODENEXT, ...latest, label: `${latestLabel}, examples` }),
  ];
  for (const problem of problems) console.error(problem);

  // The emulator of the copy installed in the consumer project, which the blocks import too.
  const { createEmulator } = await import(pathToFileURL(path.join(dir, 'node_modules', 'svc-sdk', 'dist', 'testing.js')).href);
  const emulator = createEmulator();
  let failures;
  try {
    const { url } = await emulator.listen(0);
    failures = await runBlocks(written, dir, { SVC_BASE_URL: url, SVC_API_KEY: 'vdr_readme' });
  } finally {
    await emulator.close();
  }
  for (const failure of failures) console.error(failure);

  // The examples the documents link to run too (a link to a broken example is a broken promise).
  const linked = [...new Set(texts.flatMap(({ markdown }) => linkedExamples(markdown)))];
  const examples = await runExamples(linked, EXAMPLES, root, dir);
  for (const failure of examples.failures) console.error(failure);
  if (examples.skipped.length) console.log(`test:readme: not run: ${examples.skipped.join('; ')}`);

  failed = problems.length > 0 || failures.length > 0 || brokenLinks.length > 0 || examples.failures.length > 0;
  const runnable = written.filter((block) => block.run).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `test:readme: ${written.length} blocks of ${documents.join(', ')} type-checked with examples/ (${Object.keys(SETTINGS).join(', ')}; @types/node pinned and latest${latestLabel.replace(", @types/node", "")}), ` +
      `${runnable} run: ${problems.length} type errors, ${failures.length} failed runs, ${brokenLinks.length} broken links; ` +
      `${linked.length - examples.skipped.length} linked examples run: ${examples.failures.length} failed (${seconds} s)`,
  );
} finally {
  if (process.env.KEEP_README_BLOCKS) console.log(`test:readme: blocks kept in ${dir} and ${latestDir}`);
  else await Promise.all([removeConsumer(dir), removeConsumer(latestDir)]);
}

/** examples/ copied into a consumer project (they import the package by name): the files to type-check. */
async function exampleFiles(consumer) {
  await cp(path.join(root, 'examples'), path.join(consumer, 'examples'), { recursive: true });
  return (await readdir(path.join(consumer, 'examples'))).filter((name) => /\.(m?js|ts)$/.test(name)).map((name) => path.join(consumer, 'examples', name));
}
process.exitCode = failed ? 1 : 0;
