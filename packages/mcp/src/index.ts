/**
 * `@svc-sdk/mcp`: a Model Context Protocol server over the svc-sdk client, for agents. A package of
 * its own beside the library (as the Stainless-generated SDKs publish theirs), so it brings its
 * dependencies (`@modelcontextprotocol/server`) and the library stays two packages when installed.
 * `svc-sdk mcp` (from `@svc-sdk/cli`) serves it on stdio or HTTP.
 *
 * @module @svc-sdk/mcp
 */
export { createMcpServer, TOOL_NAMES, type McpServerOptions } from './server.js';
export { createMcpHttpHandler, listenMcp, type ListenLimits, type McpHttpHandler, type McpHttpOptions } from './http.js';
// What `svc-sdk mcp` (@svc-sdk/cli) serves with besides the server, here so that the command and a
// server of your own keep the same rules: the state folder, the HTTP credential kept in it, and the
// stdio line cap.
export { defaultStateDir } from './secret-files.js';
export { storedCredential } from './http-credential.js';
export { cappedLines, DEFAULT_MAX_LINE_BYTES } from './stdio-cap.js';
// Not exported: the tools themselves (data the server registers), the commit ledger (its key never
// leaves the process) and the operation facts (read from the library's operation table).
