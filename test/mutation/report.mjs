// Turns Stryker's JSON report (reports/mutation/mutation.json) into MUTATION.md: the score per area
// and every surviving mutant, each with the reason test/mutation/survivors.json gives for it
// (equivalent: no program could tell it apart; speed-only: only time or memory changes; untestable:
// a difference no test can set up, such as a race window or a kernel failure) or
// flagged as unclassified, which `npm run test:mutation` treats as a failure.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('./', import.meta.url));
const AREAS = ['src/core', 'src/webhooks', 'src/resources', 'src/otel', 'src/uploads', 'src/shared'];

/**
 * The files of one or more Stryker JSON reports, merged by file: the runs of one area at a time
 * (`npm run test:mutation -- --mutate 'src/core/**'`, each report copied aside) make the whole
 * picture together, as one full run would, on a machine where one full run takes hours.
 */
function readReports(root, reports) {
  const paths = reports.length ? reports : [path.join(root, 'reports', 'mutation', 'mutation.json')];
  const files = {};
  for (const report of paths) Object.assign(files, JSON.parse(readFileSync(report, 'utf8')).files);
  return files;
}

/** The source text a mutant replaced, on one line (what survivors.json matches, so line moves do not matter). */
function originalText(source, { start, end }) {
  const lines = source.split('\n');
  const picked = lines.slice(start.line - 1, end.line);
  picked[picked.length - 1] = picked[picked.length - 1].slice(0, end.column - 1);
  picked[0] = picked[0].slice(start.column - 1);
  return oneLine(picked.join('\n'));
}

const oneLine = (text) => text.replace(/\s+/g, ' ').trim();
const short = (text, max = 90) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const cell = (text) => `\`${short(text).replaceAll('`', "'").replaceAll('|', '\\|')}\``;

/**
 * Counts of each status, and the score over covered mutants (killed + timeout of those tests reached).
 * `ignoreStatic` runs a static mutant that tests also reach ("hybrid": module-level code such as a
 * constant, or a factory called at import) with its covering tests only, after the module was
 * loaded, so its switch is never read: such a survivor says nothing either way. Static mutants are
 * therefore scored apart from the rest.
 */
function tally(all) {
  const mutants = all.filter((mutant) => !mutant.static);
  const staticMutants = all.filter((mutant) => mutant.static);
  const count = (...statuses) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const errors = count('CompileError', 'RuntimeError');
  const ignored = count('Ignored');
  const detected = killed + timeout;
  const covered = detected + survived;
  const valid = covered + noCoverage;
  const percent = (part, whole) => (whole ? `${((part / whole) * 100).toFixed(1)} %` : '-');
  const staticKilled = staticMutants.filter((mutant) => mutant.status === 'Killed' || mutant.status === 'Timeout').length;
  return { total: all.length, static: staticMutants.length, staticKilled, killed, timeout, survived, noCoverage, errors, ignored, covered: percent(detected, covered), all: percent(detected, valid) };
}

/**
 * Reads the JSON report, matches survivors against survivors.json, prints the summary and, given
 * `output`, writes it there as Markdown. Resolves with the number of unclassified survivors.
 */
export async function writeMutationReport({ root, output, reports = [] }) {
  const files = readReports(root, reports);
  const known = JSON.parse(readFileSync(path.join(here, 'survivors.json'), 'utf8'));
  const mutants = [];
  for (const [file, { source, mutants: fileMutants }] of Object.entries(files)) {
    const relative = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
    for (const mutant of fileMutants) {
      const line = oneLine(source.split('\n')[mutant.location.start.line - 1] ?? '');
      mutants.push({ ...mutant, file: relative, line, original: originalText(source, mutant.location), replacement: oneLine(mutant.replacement ?? '') });
    }
  }
  const survivors = mutants
    .filter((mutant) => !mutant.static && (mutant.status === 'Survived' || mutant.status === 'NoCoverage'))
    .map((mutant) => ({
      ...mutant,
      reason: known.find(
        // `line` (optional) narrows a short `original` such as '' to the source line holding it.
        (entry) =>
          entry.file === mutant.file &&
          entry.mutator === mutant.mutatorName &&
          entry.original === mutant.original &&
          entry.replacement === mutant.replacement &&
          (entry.line === undefined || mutant.line.includes(entry.line)),
      ),
    }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.location.start.line - b.location.start.line);
  const unclassified = survivors.filter((mutant) => !mutant.reason);
  const explained = survivors.length - unclassified.length;
  const all = tally(mutants);
  const covered = all.killed + all.timeout + all.survived;
  // Only explained survivors leave the covered mutants: an explained mutant with no coverage was never among them.
  const explainedCovered = survivors.filter((mutant) => mutant.reason && mutant.status === 'Survived').length;
  const withoutExplained = covered - explainedCovered ? `${(((all.killed + all.timeout) / (covered - explainedCovered)) * 100).toFixed(1)} %` : '-';

  const strykerVersion = JSON.parse(readFileSync(path.join(here, 'node_modules', '@stryker-mutator', 'core', 'package.json'), 'utf8')).version;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const rows = [...AREAS.map((area) => [area, tally(mutants.filter((mutant) => mutant.file.startsWith(`${area}/`)))]), ['all', tally(mutants)]];
  // Which files of each area the report(s) hold: a run of some files only says nothing of the others.
  const reported = new Set(mutants.map((mutant) => mutant.file));
  const coverage = AREAS.map((area) => {
    const sources = readdirSync(path.join(root, area), { recursive: true })
      .map((file) => `${area}/${String(file).split(path.sep).join('/')}`)
      .filter((file) => file.endsWith('.ts'));
    const run = sources.filter((file) => reported.has(file));
    const missing = sources.filter((file) => !reported.has(file));
    return `- ${area}: ${run.length} of ${sources.length} files in the report(s)${missing.length && run.length ? `; not run: ${missing.map((file) => path.basename(file)).join(', ')}` : ''}`;
  });
  const lines = [
    '# Mutation testing',
    '',
    `Written by ${reports.length ? '`node test/mutation/report.mjs`' : '`npm run test:mutation`'} (Stryker ${strykerVersion}, vitest runner, \`coverageAnalysis: perTest\`) at commit ${commit}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC${
      reports.length ? `, from ${reports.length} runs of one area each (${reports.map((report) => path.basename(report, '.json')).join(', ')}), merged by file (\`node test/mutation/report.mjs <report.json>…\`)` : ''
    }.`,
    'Runs are incremental: a mutant whose code and covering tests did not change since the previous run keeps its result',
    '(reports/mutation/stryker-incremental.json; `npm run test:mutation -- --force` runs every mutant again).',
    `Stryker changes one thing at a time in ${AREAS.join(', ')} (the redaction rule, src/shared/redact.ts) and runs the tests that reach it;`,
    'a mutant no test notices has *survived*. Score = (killed + timed out) / covered mutants, the target being ≥ 95 %.',
    'Each survivor is listed below with why no test can notice it (from test/mutation/survivors.json): *equivalent*',
    '(no caller can tell the difference), *speed-only* (only time or memory changes) or *untestable* (a difference no test',
    'can set up: a race window, a kernel failure, a branch of another runtime). The full report: reports/mutation/index.html (not committed).',
    '',
    '| area | mutants | static (killed) | killed | timed out | survived | no coverage | runtime errors | score (covered) | score (incl. no coverage) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(([area, t]) => `| ${area} | ${t.total} | ${t.static} (${t.staticKilled}) | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${t.errors} | ${t.covered} | ${t.all} |`),
    '',
    'Files each area\'s score is over (a file with nothing to mutate, such as types only or re-exports, is never in a report):',
    '',
    ...coverage,
    '',
    'Killed, timed out, survived and no coverage count the mutants that are not static; the scores are over those.',
    '*Static* mutants change module-level code (constants, tables, factories called at import). Run properly, each needs the',
    'whole suite re-run with fresh modules, which made a run on 2 cores take about 2 hours; with `ignoreStatic` Stryker runs',
    'them with their covering tests only, after the module was loaded, so a static survivor proves nothing: they are',
    'scored apart (the number in brackets was killed all the same) and their survivors are not listed below.',
    '*Score (incl. no coverage)* also counts mutants that no test reached as survivors.',
    '',
    `Of the ${survivors.length} survivors below, ${explained} are explained (equivalent, speed-only or untestable) and ${unclassified.length} are not:`,
    `test gaps, or equivalents nobody has proven yet. Leaving the explained ones out, the score is ${withoutExplained}.`,
    '',
    `## Survivors that are not static (${survivors.length})`,
    '',
    ...(survivors.length
      ? [
          '| where | mutator | original | mutant | kind | why no test can notice |',
          '| --- | --- | --- | --- | --- | --- |',
          ...survivors.map(
            (mutant) =>
              `| ${mutant.file}:${mutant.location.start.line} | ${mutant.mutatorName}${mutant.status === 'NoCoverage' ? ' (no coverage)' : ''} | ${cell(mutant.original)} | ${cell(mutant.replacement)} | ${mutant.reason?.kind ?? '**unclassified**'} | ${mutant.reason?.why ?? 'a test gap: no test notices this change'} |`,
          ),
        ]
      : ['None.']),
    '',
  ];
  const markdown = lines.join('\n');
  if (output) writeFileSync(output, markdown);
  console.log(`\n${rows.map(([area, t]) => `${area.padEnd(14)} score ${t.covered.padStart(7)} of covered (${t.killed} killed, ${t.timeout} timed out, ${t.survived} survived, ${t.noCoverage} no coverage)`).join('\n')}`);
  for (const mutant of unclassified) {
    console.log(`unclassified survivor: ${mutant.file}:${mutant.location.start.line} ${mutant.mutatorName}: ${short(mutant.original, 60)} -> ${short(mutant.replacement, 60)}`);
  }
  // An entry that matches no survivor is stale (its code changed or a test now kills it): left in, it could
  // one day match a new mutant of the same text with a reason that no longer holds.
  // Only a full run (one that writes MUTATION.md) sees every survivor: a partial run would call most entries stale.
  const stale = output ? known.filter((entry) => !survivors.some((mutant) => mutant.reason === entry)) : [];
  for (const entry of stale) {
    console.log(`stale survivors.json entry (matches no survivor): ${entry.file} ${entry.mutator}: ${short(entry.original, 60)} -> ${short(entry.replacement, 60)}`);
  }
  if (output) console.log(`written: ${path.relative(root, output)}`);
  return { unclassified: unclassified.length, stale: stale.length };
}

// `node test/mutation/report.mjs [report.json…]` rewrites MUTATION.md from the last run's report, or from
// the reports of several runs (one area each) merged by file, without running Stryker again.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(here, '../..');
  const reports = process.argv.slice(2).map((report) => path.resolve(report));
  const { unclassified, stale } = await writeMutationReport({ root, output: path.join(root, 'MUTATION.md'), reports });
  process.exitCode = unclassified || stale ? 1 : 0;
}
