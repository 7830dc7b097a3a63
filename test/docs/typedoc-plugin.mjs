// A TypeDoc plugin (typedoc.json "plugin"): an exported `const` whose type is callable, such as
// `export const verifyWebhook: VerifyWebhook = verifyWebhookWith(hmac)`, is listed as the function it
// is, with its call signatures and their docs and @example, instead of under "Variables". TypeDoc
// does so for a `const` marked `@function`; this marks every callable one, so the sources need no tag.
/** ReflectionKind.Variable (TypeDoc's numbering, stable across its versions). */
const VARIABLE = 32;

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on('begin', (context) => {
    const prototype = Object.getPrototypeOf(context);
    if (prototype.getComment.markedCallables) return;
    const getComment = prototype.getComment;
    prototype.getComment = function (symbol, kind) {
      const comment = getComment.call(this, symbol, kind);
      if (kind === VARIABLE && comment && isCallable(this.checker, symbol)) comment.modifierTags.add('@function');
      return comment;
    };
    prototype.getComment.markedCallables = true;
  });
}

function isCallable(checker, symbol) {
  const type = checker.getTypeOfSymbol(symbol);
  return type.getCallSignatures().length > 0 && type.getConstructSignatures().length === 0;
}
