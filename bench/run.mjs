// Runs every benchmark and writes BENCHMARKS.md. `--quick` for a fast pass (fewer rounds, a smaller upload).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchBundleSize, renderBundleSize } from './bundle-size.mjs';
import { benchColdStart, renderColdStart } from './cold-start.mjs';
import { benchHttpOverhead, renderHttpOverhead } from './http-overhead.mjs';
import { benchWebhookVerify, renderWebhookVerify } from './webhook-verify.mjs';

const quick = process.argv.includes('--quick');
const file = new URL('../BENCHMARKS.md', import.meta.url);
const sections = [];

async function section(title, intro, run, render) {
  console.error(`bench: ${title}…`);
  try {
    sections.push(`## ${title}\n\n${intro}\n\n${render(await run({ quick }))}`);
  } catch (error) {
    sections.push(`## ${title}\n\n${intro}\n\nNot measured in this run: ${error.message}`);
  }
}

await section(
  'Webhook verification',
  'Throughput of one verification, header parsing included, through each public API. Ratios are to the naive limit measured in the same run (interleaved rounds, medians).',
  benchWebhookVerify,
  renderWebhookVerify,
);
await section(
  'Per-request overhead (loopback)',
  'A POST with a Bearer header and a JSON body, answered by a server in its own process; the response JSON is parsed. Ratios are to raw `fetch` in the same run. ky builds a `Request` per call, and `fetch(new Request(…))` alone is shown as the floor any ky-based client starts from.',
  benchHttpOverhead,
  renderHttpOverhead,
);
await section(
  'Bundle size',
  'esbuild, `--platform=browser --minify`, gzip level 9, importing one name from the built package.',
  benchBundleSize,
  renderBundleSize,
);
await section(
  'Cold start (Node)',
  'Whole-process wall time of `node --input-type=module -e …`, interleaved, medians.',
  benchColdStart,
  renderColdStart,
);

// The upload benchmark writes its own section; run it here and keep what it wrote.
const uploadScript = new URL('./upload-memory.mjs', import.meta.url);
let uploadSection = '## Upload memory\n\nNot measured in this run: bench/upload-memory.mjs is missing.';
if (existsSync(uploadScript)) {
  console.error('bench: upload memory…');
  const result = spawnSync(process.execPath, [uploadScript.pathname, ...(quick ? ['--size', '256'] : [])], { stdio: 'inherit' });
  const written = existsSync(file) ? readFileSync(file, 'utf8').match(/## Upload memory[\s\S]*?(?=\n## |$)/)?.[0] : undefined;
  uploadSection = result.status === 0 && written ? written.trim() : `## Upload memory\n\nThe run failed (exit ${result.status}).`;
}
sections.push(uploadSection);

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB`;
const header = [
  '# Benchmarks',
  '',
  `- Machine: ${machine}`,
  `- Node: ${process.version}`,
  `- Date: ${new Date().toISOString().slice(0, 10)}`,
  `- Command: \`npm run bench${quick ? ' -- --quick' : ''}\``,
  '',
  'Figures vary ±15 % between runs on this shared 2-core machine; compare the ratios within one run.',
].join('\n');
writeFileSync(file, `${header}\n\n${sections.join('\n\n')}\n`);
console.error('bench: wrote BENCHMARKS.md');
