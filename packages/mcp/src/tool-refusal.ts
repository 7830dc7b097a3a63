// The one error a tool throws on purpose: its own module, so what tools use (secret files, the
// upload policy) can throw it without importing the tool shape (tool.ts imports them back).

/** A refusal the model can act on (bad input, a link that needs --allow-destructive): returned as a tool error, nothing sent. */
export class ToolRefusal extends Error {
  override readonly name = 'ToolRefusal';
}
