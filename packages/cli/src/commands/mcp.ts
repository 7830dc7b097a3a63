// `svc-sdk mcp`: the MCP server of svc-sdk/mcp for agents, over stdio (for a desktop host's
// config file) or stateless Streamable HTTP. stdout is the protocol's channel in stdio mode: this
// command writes nothing else there; its own lines go to stderr.
import { randomHex } from 'svc-sdk/internal';
import { integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';
import { println, untilStopped } from '../signals.js';

const HELP = `Usage: svc-sdk mcp [--http [--port 3333]] [--allow-writes [--allow-destructive]] [--tool <name>]… [--no-tool <name>]… [--emulator]

Serves svc's tools to an AI agent over the Model Context Protocol: on stdio (what a desktop
host's config file starts), or with --http on http://127.0.0.1:<port>/mcp (stateless Streamable
HTTP, current and previous protocol clients). SVC_API_KEY and SVC_BASE_URL come from the
environment and never reach the model.

Read-only unless --allow-writes. Every write previews first and acts only when called again
with the preview's commit token (and, where the host can ask, the user's yes).

Options:
  --allow-writes          Lists the tools that create or change things.
  --allow-destructive     Also lists the destructive ones (webhook_delete, webhook_rotate_secret)
                          and lets transaction_link_room replace a link. Needs --allow-writes.
  --tool <name>           Lists only the tools named (repeatable).
  --no-tool <name>        Leaves a tool out (repeatable).
  --emulator              Serves against the built-in emulator, in process: rehearse a flow safely.
  --upload-root <dir>     A folder room_documents_upload may read (repeatable). Default: the current one.
  --state-dir <dir>       Where webhook secrets (0600 files) and upload manifests go.
                          Default: $XDG_STATE_HOME/svc-sdk/mcp (~/.local/state/svc-sdk/mcp).
  --http                  Serves over HTTP instead of stdio.
  --port <n>              HTTP port on 127.0.0.1 (0: any free one). Default 3333.
  --allowed-host <name>   Accepts this Host / Origin name besides loopback (repeatable; HTTP only).
  --max-body-bytes <n>    Largest HTTP request body; larger ones get 413. Default 1048576.
  -h, --help              Shows this help.`;

/** `svc-sdk mcp`. */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'Serves the tools to AI agents over the Model Context Protocol (stdio or --http), read-only unless --allow-writes.',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommandArgs('mcp', args, {
      http: { type: 'boolean' },
      port: { type: 'string' },
      'allow-writes': { type: 'boolean' },
      'allow-destructive': { type: 'boolean' },
      tool: { type: 'string', multiple: true },
      'no-tool': { type: 'string', multiple: true },
      emulator: { type: 'boolean' },
      'upload-root': { type: 'string', multiple: true },
      'state-dir': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      'max-body-bytes': { type: 'string' },
    });
    const flag = (name: string) => parsed.values[name] === true;
    const list = (name: string) => parsed.values[name] as unknown as string[] | undefined;
    const http = flag('http');
    if (!http) for (const name of ['port', 'allowed-host', 'max-body-bytes']) if (parsed.values[name] !== undefined) throw new UsageError(`--${name} is for --http: add --http or leave it out`);
    if (flag('allow-destructive') && !flag('allow-writes')) throw new UsageError('--allow-destructive needs --allow-writes as well');
    const port = integerFlag(stringFlag(parsed, 'port') ?? '3333', '--port', 0, 65_535);
    const maxBodyBytes = integerFlag(stringFlag(parsed, 'max-body-bytes') ?? '1048576', '--max-body-bytes', 1024, 1024 ** 3);

    const mcp = await loadMcp();
    const { client, apiKey, stop } = await serviceClient(flag('emulator'), io.env);
    const options = {
      client,
      allowWrites: flag('allow-writes'),
      allowDestructive: flag('allow-destructive'),
      tools: list('tool'),
      excludeTools: list('no-tool'),
      uploadRoots: list('upload-root'),
      stateDir: stringFlag(parsed, 'state-dir'),
      redact: apiKey === undefined ? [] : [apiKey],
    };
    let served: { close(): Promise<void> };
    try {
      if (http) {
        const handler = mcp.createMcpHttpHandler({ ...options, maxBodyBytes, allowedHosts: withLoopback(list('allowed-host')), allowedOrigins: withLoopback(list('allowed-host')) });
        const { server, url } = await mcp.listenMcp(handler.listener, port).catch((error: { code?: string }) => {
          if (error.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: pick another with --port`);
          throw error;
        });
        println(io.stdout, `svc-sdk mcp listening on ${url}${flag('emulator') ? ' (against the built-in emulator)' : ''}`);
        println(io.stdout, 'Press Ctrl+C to stop.');
        served = { close: async () => (await handler.close(), await new Promise<void>((resolve) => server.close(() => resolve()))) };
        await untilStopped();
      } else {
        mcp.createMcpServer(options); // checks the options (a bad tool name) before serving
        const handle = mcp.serveStdio(() => mcp.createMcpServer(options), { legacy: 'serve' });
        served = handle;
        println(io.stderr, `svc-sdk mcp: serving on stdio${flag('emulator') ? ' against the built-in emulator' : ''}`);
        await Promise.race([untilStopped(), new Promise((resolve) => process.stdin.once('close', resolve).once('end', resolve))]);
      }
    } catch (error) {
      if (error instanceof Error && /^\[svc-sdk\] (tools|excludeTools): /.test(error.message)) {
        throw new UsageError(error.message.replace('[svc-sdk] tools: ', '--tool: ').replace('[svc-sdk] excludeTools: ', '--no-tool: ').replace(/pass allowWrites and allowDestructive/, 'add --allow-writes --allow-destructive').replace(/pass allowWrites/, 'add --allow-writes'));
      }
      throw error;
    }
    await served.close();
    await stop();
    return 0;
  },
};

/** The loopback names and `extra`. */
function withLoopback(extra: readonly string[] | undefined): string[] | undefined {
  return extra === undefined ? undefined : ['localhost', '127.0.0.1', '[::1]', '::1', ...extra];
}

/** @svc-sdk/mcp and the protocol's stdio transport, loaded here so the other commands start without them. */
async function loadMcp() {
  const [mcp, stdio] = await Promise.all([import('@svc-sdk/mcp'), import('@modelcontextprotocol/server/stdio')]);
  return { ...mcp, serveStdio: stdio.serveStdio };
}

/** The client the tools call: on the built-in emulator (in process), or on SVC_BASE_URL with SVC_API_KEY. */
async function serviceClient(emulated: boolean, env: NodeJS.ProcessEnv) {
  const { Client } = await import('svc-sdk');
  if (!emulated) {
    try {
      const apiKey = env.SVC_API_KEY;
      return { client: new Client({ apiKey, baseUrl: env.SVC_BASE_URL }), apiKey, stop: async () => {} };
    } catch (error) {
      throw new UsageError(`${(error as Error).message.replace(/^\[svc-sdk\] /, '')} Or pass --emulator to rehearse against the built-in emulator.`);
    }
  }
  const { createEmulator } = await import('svc-sdk/testing');
  const emulator = createEmulator({ deliveryDelayMs: 2000 });
  const apiKey = `vdr_emulator_${randomHex(12)}`;
  return { client: new Client({ apiKey, baseUrl: 'http://localhost', fetch: emulator.fetch }), apiKey, stop: () => emulator.close() };
}
