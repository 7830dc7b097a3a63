// `svc-sdk mcp`: the MCP server of svc-sdk/mcp for agents, over stdio (for a desktop host's
// config file) or stateless Streamable HTTP. stdout is the protocol's channel in stdio mode: this
// command writes nothing else there; its own lines go to stderr.
import { DEFAULT_MCP_MAX_BODY_BYTES } from 'svc-sdk/internal';
import { integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand } from '../command.js';
import { println, untilStopped } from '../signals.js';
import { redisUrl } from '../redis-url.js';
import { DEFAULT_PREFIX, openLedger } from './actions.js';

const HELP = `Usage: svc-sdk mcp [--http [--port 3333]] [--allow-writes [--allow-destructive]] [--tool <name>]… [--no-tool <name>]… [--upload-root <dir>]… [--allow-upload <rule>]… [--emulator]

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
  --upload-root <dir>     A folder room_documents_upload may read (repeatable). Default: the
                          roots the host shares (stdio); with neither, the tool is not listed.
                          The working directory is never a root unless named here.
  --allow-upload <rule>   Lets uploads send what a rule refuses inside the roots (repeatable):
                          state-dir, ssh, gnupg, aws, azure, kube, docker, gcloud, netrc,
                          npmrc, env, pem, key, p12, id, keychain, svc-sdk.
  --actions-redis <url>   Lists action_pending_list and action_wait over the action ledger in this Redis
                          (svc-sdk/actions); read-only, no tool decides. --actions-prefix <p> sets its
                          key prefix (default ${DEFAULT_PREFIX}).
  --state-dir <dir>       Where the commit key, spent tokens, webhook secrets (0600 files),
                          upload manifests and the HTTP credential go.
                          Default: $XDG_STATE_HOME/svc-sdk/mcp (~/.local/state/svc-sdk/mcp).
  --http                  Serves over HTTP instead of stdio.
  --port <n>              HTTP port on 127.0.0.1 (0: any free one). Default 3333.
  --allowed-host <name>   Accepts this Host / Origin name besides loopback (repeatable; HTTP only).
  --max-body-bytes <n>    Largest HTTP request body; larger ones get 413. Default ${DEFAULT_MCP_MAX_BODY_BYTES}.
  --no-credential         Serves HTTP without a credential (only behind a front that
                          authenticates). By default every request needs
                          Authorization: Bearer <credential>: SVC_MCP_CREDENTIAL, or one made
                          once in the state folder (printed when made).
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
      'allow-upload': { type: 'string', multiple: true },
      'no-credential': { type: 'boolean' },
      'state-dir': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      'max-body-bytes': { type: 'string' },
      'actions-redis': { type: 'string' },
      'actions-prefix': { type: 'string' },
    });
    const flag = (name: string) => parsed.values[name] === true;
    const list = (name: string) => parsed.values[name] as unknown as string[] | undefined;
    const http = flag('http');
    if (!http) for (const name of ['port', 'allowed-host', 'max-body-bytes', 'no-credential']) if (parsed.values[name] !== undefined) throw new UsageError(`--${name} is for --http: add --http or leave it out`);
    if (flag('allow-destructive') && !flag('allow-writes')) throw new UsageError('--allow-destructive needs --allow-writes as well');
    const port = integerFlag(stringFlag(parsed, 'port') ?? '3333', '--port', 0, 65_535);
    const maxBodyBytes = integerFlag(stringFlag(parsed, 'max-body-bytes') ?? String(DEFAULT_MCP_MAX_BODY_BYTES), '--max-body-bytes', 1024, 1024 ** 3);

    const actionsUrl = stringFlag(parsed, 'actions-redis');
    if (actionsUrl === undefined && parsed.values['actions-prefix'] !== undefined) throw new UsageError('--actions-prefix is for --actions-redis: add --actions-redis <url> or leave it out');
    const mcp = await loadMcp();
    const { client, apiKey, stop } = await serviceClient(flag('emulator'), io.env);
    const ledger = actionsUrl === undefined ? undefined : await openLedger(redisUrl(actionsUrl, undefined, '--actions-redis'), stringFlag(parsed, 'actions-prefix') ?? DEFAULT_PREFIX, { oneShot: false });
    const options = {
      client,
      actions: ledger?.ledger,
      allowWrites: flag('allow-writes'),
      allowDestructive: flag('allow-destructive'),
      tools: list('tool'),
      excludeTools: list('no-tool'),
      uploadRoots: list('upload-root'),
      allowUploads: list('allow-upload'),
      stateDir: stringFlag(parsed, 'state-dir') ?? mcp.defaultStateDir(io.env),
      redact: apiKey === undefined ? [] : [apiKey],
    };
    let served: { close(): Promise<void> };
    try {
      if (http) {
        const credential = flag('no-credential') ? false : await httpCredential(mcp, options.stateDir, io);
        const handler = mcp.createMcpHttpHandler({ ...options, credential, maxBodyBytes, allowedHosts: withLoopback(list('allowed-host')), allowedOrigins: withLoopback(list('allowed-host')) });
        const { server, url } = await mcp.listenMcp(handler.listener, port).catch((error: { code?: string }) => {
          if (error.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: pick another with --port`);
          throw error;
        });
        println(io.stdout, `svc-sdk mcp listening on ${url}${flag('emulator') ? ' (against the built-in emulator)' : ''}`);
        println(io.stdout, 'Press Ctrl+C to stop.');
        served = { close: async () => (await handler.close(), await new Promise<void>((resolve) => server.close(() => resolve()))) };
        await untilStopped(io.stop);
      } else {
        mcp.createMcpServer(options); // checks the options (a bad tool name) before serving
        const input = mcp.cappedLines(process.stdin, process.stdout, (line) => println(io.stderr, line));
        const handle = mcp.serveStdio(() => mcp.createMcpServer(options), { legacy: 'serve', transport: new mcp.StdioServerTransport(input, process.stdout) });
        served = handle;
        println(io.stderr, `svc-sdk mcp: serving on stdio${flag('emulator') ? ' against the built-in emulator' : ''}`);
        await Promise.race([untilStopped(io.stop), new Promise((resolve) => process.stdin.once('close', resolve).once('end', resolve))]);
      }
    } catch (error) {
      await ledger?.close().catch(() => undefined);
      if (error instanceof Error && /^\[svc-sdk\] allowUploads: /.test(error.message)) throw new UsageError(error.message.replace('[svc-sdk] allowUploads: ', '--allow-upload: '));
      if (error instanceof Error && /^\[svc-sdk\] (tools|excludeTools): /.test(error.message)) {
        throw new UsageError(
          error.message
            .replace('[svc-sdk] tools: ', '--tool: ')
            .replace('[svc-sdk] excludeTools: ', '--no-tool: ')
            .replace(/pass allowWrites and allowDestructive/, 'add --allow-writes --allow-destructive')
            .replace(/pass allowWrites/, 'add --allow-writes')
            .replace(/pass actions: createActionLedger\(\.\.\.\)/, 'add --actions-redis <url>'),
        );
      }
      throw error;
    }
    await served.close();
    await ledger?.close();
    await stop();
    return 0;
  },
};

/** The HTTP credential: SVC_MCP_CREDENTIAL, or the state folder's (made and printed once, on stderr). */
async function httpCredential(mcp: Awaited<ReturnType<typeof loadMcp>>, stateDir: string, io: Parameters<CliCommand['run']>[1]): Promise<string> {
  const given = io.env['SVC_MCP_CREDENTIAL'];
  if (given !== undefined && given !== '') return given;
  const { credential, made, path } = await mcp.storedCredential(stateDir);
  if (made) println(io.stderr, `svc-sdk mcp: a credential was made for HTTP clients (shown this once; kept in ${path}): send Authorization: Bearer ${credential}`);
  else println(io.stderr, `svc-sdk mcp: HTTP clients send Authorization: Bearer <the credential in ${path}>`);
  return credential;
}

/** The loopback names and `extra`. */
function withLoopback(extra: readonly string[] | undefined): string[] | undefined {
  return extra === undefined ? undefined : ['localhost', '127.0.0.1', '[::1]', '::1', ...extra];
}

/** @svc-sdk/mcp and the protocol's stdio transport, loaded here so the other commands start without them. */
async function loadMcp() {
  const [mcp, stdio] = await Promise.all([import('@svc-sdk/mcp'), import('@modelcontextprotocol/server/stdio')]);
  return { ...mcp, serveStdio: stdio.serveStdio, StdioServerTransport: stdio.StdioServerTransport };
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
  // One key for every process: a preview made by one server process commits on another (a host that starts one per call).
  const apiKey = 'vdr_emulator_rehearsal';
  return { client: new Client({ apiKey, baseUrl: 'http://localhost', fetch: emulator.fetch }), apiKey, stop: () => emulator.close() };
}
