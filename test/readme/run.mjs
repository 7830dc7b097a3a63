// `npm run test:readme`: every TypeScript/JavaScript block of README.md and CONTRIBUTING.md
// type-checks as pasted under the strictest settings (nodenext and bundler), the blocks marked
// `<!-- run -->` run against the emulator, links within the repository lead somewhere, and the
// examples they link to run (test/readme/examples.mjs says how). Needs `npm run build` first (blocks import the built package).
//   node test/readme/run.mjs [doc.md ...]    other documents (default: README.md CONTRIBUTING.md)
//   KEEP_README_BLOCKS=1                     keep the consumer project and print where it is
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractBlocks } from './extract.mjs';
import { checkLinks } from './links.mjs';
import { EXAMPLES, linkedExamples } from './examples.mjs';
import { createConsumer, removeConsumer, runBlocks, runExamples, SETTINGS, typeCheck, writeBlocks } from './harness.mjs';

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
let failed;
try {
  const written = await writeBlocks(blocks, dir);
  const problems = typeCheck(written, dir);
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
    `test:readme: ${written.length} blocks of ${documents.join(', ')} type-checked (${Object.keys(SETTINGS).join(', ')}), ` +
      `${runnable} run: ${problems.length} type errors, ${failures.length} failed runs, ${brokenLinks.length} broken links; ` +
      `${linked.length - examples.skipped.length} linked examples run: ${examples.failures.length} failed (${seconds} s)`,
  );
} finally {
  if (process.env.KEEP_README_BLOCKS) console.log(`test:readme: blocks kept in ${dir}`);
  else await removeConsumer(dir);
}
process.exitCode = failed ? 1 : 0;
