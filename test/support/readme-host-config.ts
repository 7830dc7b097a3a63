// The README's MCP host config (its `mcpServers` block) and the rehearsal's `args`, read as a host
// reads them: the tests that start it (test/release/registry.test.ts from a registry,
// test/langchain/mcp-adapters.test.ts through LangChain's client) run what the README says, so the two cannot drift.

/** One server of an `mcpServers` block, as desktop hosts and agent frameworks read it. */
export interface HostServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The first server of the README's `mcpServers` JSON block (with its name) and the rehearsal's
 * `args` (`Rehearse first: "args": [...]`).
 *
 * @param markdown The README's text.
 */
export function readmeHostConfig(markdown: string): { name: string; server: HostServerConfig; rehearsal: { args: string[] } } {
  const block = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => text.includes('"mcpServers"'));
  if (block === undefined) throw new Error('[svc-sdk] the README has no ```json block with "mcpServers"');
  const [name, server] = Object.entries((JSON.parse(block) as { mcpServers: Record<string, HostServerConfig> }).mcpServers)[0]!;
  const args = /Rehearse first: `("args": \[[^\]]*\])`/.exec(markdown)?.[1];
  if (args === undefined) throw new Error('[svc-sdk] the README has no "Rehearse first: `"args": [...]`" line');
  return { name, server, rehearsal: JSON.parse(`{${args}}`) as { args: string[] } };
}
