/**
 * `@svc-sdk/mcp`: a Model Context Protocol server over the svc-sdk client, for agents. A package of
 * its own beside the library (as the Stainless-generated SDKs publish theirs), so it brings its
 * dependencies (`@modelcontextprotocol/server`) and the library stays two packages when installed.
 * `svc-sdk mcp` (from `@svc-sdk/cli`) serves it on stdio or HTTP.
 *
 * @module @svc-sdk/mcp
 */
export { createMcpServer, TOOL_NAMES, type McpServerOptions } from './server.js';
export { createMcpHttpHandler, listenMcp, type McpHttpHandler, type McpHttpOptions } from './http.js';
// Not exported: the tools themselves (data the server registers), the commit ledger (its key never
// leaves the process) and the operation facts (read from the library's operation table).
