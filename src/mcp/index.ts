/**
 * `svc-sdk/mcp`: a Model Context Protocol server over the client, for agents. Needs the optional
 * peer `@modelcontextprotocol/server` (^2.4); no other entry of svc-sdk loads it.
 *
 * @module svc-sdk/mcp
 */
export { createMcpServer, TOOL_NAMES, type McpServerOptions } from './server.js';
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from './http.js';
// Not exported: the tools themselves (data the server registers), the commit ledger (its key never
// leaves the process) and the operation facts (the operation table's, at the merge).
