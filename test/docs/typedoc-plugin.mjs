// A TypeDoc plugin (typedoc.json "plugin") that makes the reference read as the anchors' do
// (openai-node, Stainless SDKs): the Client first with its resources under it, then the errors and
// the helpers, and the params and response types folded away in categories of their own.
//
// - An exported `const` whose type is callable, such as `export const verifyWebhook: VerifyWebhook =
//   verifyWebhookWith(hmac)`, is listed as the function it is, with its call signatures and their
//   docs and @example, instead of under "Variables" (what TypeDoc does for a `const` marked
//   `@function`; this marks every callable one, so the sources need no tag).
// - Every module's members get a category from the rules below (a `@category` tag in the source
//   wins over them): rules follow the API's structure (what a Client exposes, what its resources'
//   methods take and return) so a new resource, entry or type lands in its place untouched.
// - The theme `svc-sdk` (typedoc.json "theme") nests the resources under the Client in the sidebar.
import { Comment, CommentTag, Converter, DefaultTheme, ReflectionKind, ReferenceReflection, Type } from 'typedoc';

/** The categories, in typedoc.json "categoryOrder"; CLIENT and RESOURCES are also the sidebar's. */
export const CATEGORY = {
  CLIENT: 'Client',
  RESOURCES: 'Resources',
  ERRORS: 'Errors',
  WEBHOOKS: 'Webhooks',
  UPLOADS: 'Uploads',
  HELPERS: 'Helpers',
  PARAMS: 'Params and options',
  RESPONSES: 'Responses',
  EVENTS: 'Webhook events',
  HOOKS: 'Hooks and logging',
};

/** Types named as params or options are params wherever they are used. */
const PARAMS_NAME = /(Params|Options?)$/;
/** Hook interfaces and their option, and the logger the Client reports through. */
const HOOKS_NAME = /(Hooks|HooksOption)$|^Log(ger|Level)$/;
/** The files that define the webhook events, their kinds and data. */
const EVENTS_FILE = /\/webhooks\/event[^/]*\.ts$/;
const TYPES = ReflectionKind.Interface | ReflectionKind.TypeAlias;

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on('begin', markCallables);
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (_context, reflection) => created.set(reflection, created.count++));
  // Before TypeDoc's CategoryPlugin (RESOLVE_END, priority -200) reads the @category tags.
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => categorize(context.project), 100);
  // After it: the resources in the order the Client declares them, not alphabetically.
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => orderResources(context.project), -300);
  app.renderer.defineTheme('svc-sdk', SvcSdkTheme);
}

/** The declared types of the callable consts (`verifyWebhook: VerifyWebhook`), by name, with the const's file. */
const callableTypes = new Map();

function markCallables(context) {
  const prototype = Object.getPrototypeOf(context);
  if (prototype.getComment.markedCallables) return;
  const getComment = prototype.getComment;
  prototype.getComment = function (symbol, kind) {
    const comment = getComment.call(this, symbol, kind);
    if (kind === ReflectionKind.Variable && comment && isCallable(this.checker, symbol)) {
      comment.modifierTags.add('@function');
      // Its declared type (`VerifyWebhook`) goes with it: the category of the const's folder.
      const type = this.checker.getTypeOfSymbol(symbol);
      const name = type.aliasSymbol?.name ?? type.symbol?.name;
      if (name) callableTypes.set(name, symbol.valueDeclaration?.getSourceFile().fileName ?? '');
    }
    return comment;
  };
  prototype.getComment.markedCallables = true;
}

function isCallable(checker, symbol) {
  const type = checker.getTypeOfSymbol(symbol);
  return type.getCallSignatures().length > 0 && type.getConstructSignatures().length === 0;
}

/** Gives each module member without a @category tag the category its rule says. */
function categorize(project) {
  // With one entry point the project is the module.
  const modules = project.children?.some((c) => c.kindOf(ReflectionKind.Module)) ? project.getReflectionsByKind(ReflectionKind.Module) : [project];
  for (const module of modules) categorizeModule(project, module);
  // A re-export (svc-sdk re-exports what svc-sdk/webhooks documents, and the reverse) goes where
  // its target is, once every module's own members have their category.
  for (const module of modules) {
    for (const reference of (module.children ?? []).filter((m) => m instanceof ReferenceReflection)) {
      const category = categoryTag(reference.getTargetReflectionDeep());
      if (category && !categoryTag(reference)) addCategoryTag(reference, category);
    }
  }
}

function categorizeModule(project, module) {
  const members = (module.children ?? []).filter((m) => !(m instanceof ReferenceReflection));
  const assigned = new Map();
  for (const member of members) if (categoryTag(member)) assigned.set(member, undefined);
  const assign = (member, category) => {
    if (members.includes(member) && !assigned.has(member)) assigned.set(member, category);
  };
  const spreadFrom = (types, category) => spread(types, category, members, assign, assigned);
  const client = members.find((m) => m.kindOf(ReflectionKind.Class) && m.name === 'Client');
  const resources = client ? resourcesOf(client).filter((r) => members.includes(r)) : [];
  if (client) assign(client, CATEGORY.CLIENT);
  for (const resource of resources) assign(resource, CATEGORY.RESOURCES);
  for (const member of members) {
    const file = project.getSymbolIdFromReflection(member)?.packagePath ?? '';
    if (member.kindOf(ReflectionKind.Class) && member.name.endsWith('Error')) assign(member, CATEGORY.ERRORS);
    else if (EVENTS_FILE.test(file)) assign(member, CATEGORY.EVENTS);
    else if (member.kindOf(TYPES) && callableTypes.has(member.name)) assign(member, helperCategory(callableTypes.get(member.name)));
    else if (member.kindOf(TYPES) && HOOKS_NAME.test(member.name)) assign(member, CATEGORY.HOOKS);
    else if (member.kindOf(TYPES) && PARAMS_NAME.test(member.name)) assign(member, CATEGORY.PARAMS);
    else if (!member.kindOf(TYPES)) assign(member, helperCategory(file));
  }
  // What the resources' methods return, and the types those contain, are the responses; what
  // they, the Client and the module's functions take are params and options; what a helper
  // returns goes with the helper (createEmulator's Emulator).
  const signatures = (r) => [...(r.signatures ?? []), ...(r.children ?? []).flatMap((c) => c.signatures ?? [])];
  const methods = resources.flatMap((r) => (r.children ?? []).flatMap((m) => m.signatures ?? []));
  // The module's functions, its own and those it re-exports (svc-sdk's verifyWebhook is svc-sdk/webhooks').
  const functions = (module.children ?? []).map((m) => (m instanceof ReferenceReflection ? m.getTargetReflectionDeep() : m)).filter((m) => m.kindOf(ReflectionKind.Function));
  spreadFrom(methods.map((s) => s.type), CATEGORY.RESPONSES);
  const callables = [...methods, ...(client ? signatures(client) : []), ...functions.flatMap(signatures)];
  spreadFrom(callables.flatMap((s) => (s.parameters ?? []).map((p) => p.type)), CATEGORY.PARAMS);
  for (const f of functions) spreadFrom(signatures(f).map((s) => s.type), helperCategory(project.getSymbolIdFromReflection(f)?.packagePath ?? ''));
  // Then what the types a rule named are made of (ClientOptions' fields, a hook's contexts, an error's issues).
  // A re-exported type counts as well (svc-sdk/webhooks' WebhookHandlerOptions, which svc-sdk documents, holds its WebhookInbox).
  const targets = (module.children ?? []).filter((m) => m instanceof ReferenceReflection).map((m) => m.getTargetReflectionDeep());
  for (const category of [CATEGORY.PARAMS, CATEGORY.HOOKS, CATEGORY.EVENTS, CATEGORY.ERRORS]) {
    const sources = [...members.filter((m) => assigned.get(m) === category), ...targets.filter((t) => categoryTag(t) === category)];
    spreadFrom(sources.flatMap(typesIn), category);
  }
  for (const [member, category] of assigned) if (category) addCategoryTag(member, category);
}

/** A function's or constant's category: the folder it comes from, for the library's own areas. */
function helperCategory(file) {
  if (/\/webhooks\//.test(file)) return CATEGORY.WEBHOOKS;
  if (/\/uploads\//.test(file)) return CATEGORY.UPLOADS;
  return CATEGORY.HELPERS;
}

/** The order in which the converter made each reflection: a class's members come in source order. */
const created = Object.assign(new WeakMap(), { count: 0 });

/** The interfaces of a Client's public properties (client.deals: Deals, ...), in declaration order. */
function resourcesOf(client) {
  return (client.children ?? [])
    .slice()
    .sort((a, b) => (created.get(a) ?? 0) - (created.get(b) ?? 0))
    .filter((c) => c.kindOf(ReflectionKind.Property) && c.type?.type === 'reference')
    .map((c) => c.type.reflection)
    .filter((r) => r?.kindOf(ReflectionKind.Interface | ReflectionKind.Class));
}

/** Assigns `category` to every module member the types reach, and to those that theirs reach in turn. */
function spread(types, category, members, assign, assigned) {
  const queue = types.flatMap((t) => reflectionsIn(t));
  const seen = new Set();
  while (queue.length) {
    const reflection = queue.shift();
    if (seen.has(reflection) || !members.includes(reflection) || !reflection.kindOf(TYPES)) continue;
    seen.add(reflection);
    if (assigned.has(reflection) && assigned.get(reflection) !== category) continue;
    assign(reflection, category);
    queue.push(...typesIn(reflection).flatMap((t) => reflectionsIn(t)));
  }
}

/** The types a declaration is made of: its alias, its members', its signatures' parameters and results. */
function typesIn(reflection) {
  const types = [];
  const visit = (r) => {
    if (!r) return;
    if (r.type) types.push(r.type);
    for (const s of [...(r.signatures ?? []), ...(r.indexSignatures ?? []), r.getSignature, r.setSignature]) {
      if (!s) continue;
      if (s.type) types.push(s.type);
      for (const p of s.parameters ?? []) if (p.type) types.push(p.type);
    }
    for (const child of r.children ?? []) visit(child);
  };
  visit(reflection);
  return types;
}

/** The project's reflections a type refers to, through type arguments, unions, arrays and inline objects. */
function reflectionsIn(type, found = [], seen = new Set()) {
  if (!(type instanceof Type) || seen.has(type)) return found;
  seen.add(type);
  if (type.type === 'reference' && type.reflection) found.push(type.reflection);
  if (type.type === 'reflection') for (const t of typesIn(type.declaration)) reflectionsIn(t, found, seen);
  for (const value of Object.values(type)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item instanceof Type) reflectionsIn(item, found, seen);
  }
  return found;
}

/** The reflection's first @category, from its comment or its signatures'. */
function categoryTag(reflection) {
  const comments = [reflection.comment, ...(reflection.signatures ?? []).map((s) => s.comment)];
  const tag = comments.flatMap((c) => c?.blockTags ?? []).find((t) => t.tag === '@category');
  return tag && Comment.combineDisplayParts(tag.content).trim();
}

function addCategoryTag(reflection, category) {
  reflection.comment ??= new Comment();
  reflection.comment.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: category }]));
}

/** Each module's Resources category in the order of the Client's properties. */
function orderResources(project) {
  for (const module of project.getReflectionsByKind(ReflectionKind.Module)) {
    const client = module.children?.find((m) => m.kindOf(ReflectionKind.Class) && m.name === 'Client');
    const category = module.categories?.find((c) => c.title === CATEGORY.RESOURCES);
    if (!client || !category) continue;
    const order = resourcesOf(client);
    category.children.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  }
}

/** The default theme, with each module's resources nested under its Client in the sidebar. */
class SvcSdkTheme extends DefaultTheme {
  buildNavigation(project) {
    const nodes = super.buildNavigation(project);
    for (const module of nodes) {
      const children = module.children ?? [];
      const clientCategory = children.find((c) => c.text === CATEGORY.CLIENT && !c.path);
      const resources = children.find((c) => c.text === CATEGORY.RESOURCES && !c.path);
      const client = clientCategory?.children?.find((c) => c.text === 'Client');
      if (!client || !resources) continue;
      client.children = [...(client.children ?? []), ...resources.children];
      // The Client stands first in its module, with no category around it.
      module.children = [...clientCategory.children, ...children.filter((c) => c !== clientCategory && c !== resources)];
    }
    return nodes;
  }
}
