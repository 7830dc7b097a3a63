// What an editor shows on hover, asked of TypeScript's language service (the one VS Code runs):
// every public method of the client has its sentence and an @example, and every field of every
// params and response type has a doc line, shown where the field is typed and where it is read.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = path.join(ROOT, 'hover-probe.ts');

/** A language service over the project's compiler options and one probe file written as a user would. */
function languageService(source: string) {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => ({ ...config.options, noEmit: true }),
    getScriptFileNames: () => [PROBE],
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => {
      const text = file === PROBE ? source : ts.sys.readFile(file);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: (file) => file === PROBE || ts.sys.fileExists(file),
    readFile: (file) => (file === PROBE ? source : ts.sys.readFile(file)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host);
}

interface Hover {
  text: string;
  documentation: string;
  tags: string[];
}

/** The hover at the `index`-th occurrence of `word` in `source`. */
function hover(service: ts.LanguageService, source: string, word: string, index = 0): Hover {
  let at = -1;
  for (let i = 0; i <= index; i += 1) at = source.indexOf(word, at + 1);
  const info = service.getQuickInfoAtPosition(PROBE, at + 1);
  return {
    text: ts.displayPartsToString(info?.displayParts),
    documentation: ts.displayPartsToString(info?.documentation),
    tags: (info?.tags ?? []).map((tag) => tag.name),
  };
}

const PROBE_SOURCE = `
import { Client } from './src/index.node.js';
const client = new Client({ apiKey: 'vdr_x', baseUrl: 'https://svc.test' });
const room = await client.rooms.create({ name: 'R', room_type: 'company_investment' });
const tx = await client.transactions.create({ name: 'T', deal_id: 1 });
void room.id, tx.linked_room_id;
`;

describe('hover in an editor', () => {
  const service = languageService(PROBE_SOURCE);

  it('compiles the probe', () => {
    expect(service.getSemanticDiagnostics(PROBE).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  });

  it('a method shows its sentence and an example', () => {
    const info = hover(service, PROBE_SOURCE, 'create');
    expect(info.documentation).toMatch(/^Creates a data room/);
    expect(info.tags).toContain('example');
  });

  it('a field of a params object shows its doc line where it is typed', () => {
    expect(hover(service, PROBE_SOURCE, 'deal_id').documentation).toMatch(/deal/i);
    expect(hover(service, PROBE_SOURCE, 'room_type').documentation).not.toBe('');
  });

  it('a field of a response shows its doc line where it is read', () => {
    expect(hover(service, PROBE_SOURCE, 'linked_room_id').documentation).toBe('The data room linked to it (`transactions.update`), or `null` before one is.');
    expect(hover(service, PROBE_SOURCE, '.id').documentation).toMatch(/^The room's id/);
  });

  it('every public method of the client and its resources has a sentence and an @example (each overload too)', () => {
    const program = service.getProgram()!;
    const checker = program.getTypeChecker();
    const clientFile = program.getSourceFile(path.join(ROOT, 'src/client.ts'))!;
    const clientClass = clientFile.statements.find((node): node is ts.ClassDeclaration => ts.isClassDeclaration(node) && node.name?.text === 'Client')!;
    const clientType = checker.getTypeAtLocation(clientClass.name!);
    const undocumented: string[] = [];
    const checkMethods = (type: ts.Type, owner: string) => {
      for (const member of type.getProperties()) {
        if (member.name.startsWith('#') || member.name === 'constructor') continue;
        const declarations = (member.getDeclarations() ?? []).filter((node) => ts.isMethodDeclaration(node) && !(node.body && (member.getDeclarations() ?? []).length > 1));
        for (const declaration of declarations) {
          const tags = ts.getJSDocTags(declaration).map((tag) => tag.tagName.text);
          const sentence = ts.displayPartsToString(member.getDocumentationComment(checker));
          if (!tags.includes('example') || sentence === '') undocumented.push(`${owner}.${member.name} (line ${declaration.getSourceFile().getLineAndCharacterOfPosition(declaration.getStart()).line + 1})`);
        }
      }
    };
    checkMethods(clientType, 'client');
    const resources = ['deals', 'rooms', 'transactions', 'documents', 'search', 'webhooks'];
    for (const name of resources) checkMethods(checker.getTypeOfSymbol(clientType.getProperty(name)!), `client.${name}`);
    expect(undocumented).toEqual([]);
  });

  it('every field of every params and response type has a doc line', () => {
    const program = service.getProgram()!;
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    let checked = 0;
    for (const file of program.getSourceFiles().filter((source) => source.fileName.includes('/src/schemas/'))) {
      for (const statement of file.statements) {
        const declaration = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) ? statement : undefined;
        if (!declaration?.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
        const type = checker.getTypeAtLocation(declaration.name);
        if (!(type.flags & ts.TypeFlags.Object) || type.getCallSignatures().length || declaration.typeParameters) continue; // open enums and helpers
        checked += 1;
        for (const property of type.getProperties()) {
          if (ts.displayPartsToString(property.getDocumentationComment(checker)) === '') undocumented.push(`${declaration.name.text}.${property.name}`);
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(16);
    expect(undocumented).toEqual([]);
  });
});

const built = existsSync(path.join(ROOT, 'dist/index.node.d.ts'));
if (!built) console.warn('[svc-sdk] skipping the hover check of the published types: dist/ is missing; run "npm run build" first (npm test does)');

describe.skipIf(!built)('hover over the published types (dist/*.d.ts, what an installed package gives)', () => {
  const source = PROBE_SOURCE.replace("'./src/index.node.js'", "'./dist/index.node.js'");
  const service = languageService(source);

  it('shows the methods\' examples and the fields\' doc lines', () => {
    expect(hover(service, source, 'create').tags).toContain('example');
    expect(hover(service, source, 'deal_id').documentation).toBe('The deal it belongs to: the `id` of a deal from `deals.create`.');
    expect(hover(service, source, 'linked_room_id').documentation).toBe('The data room linked to it (`transactions.update`), or `null` before one is.');
  });
});
