// The examples the documents link to, and how each runs by itself: the harness runs every linked
// example this way (in the consumer project, against the emulator or its own self-test) and fails
// on a linked example missing here.

const receiver = { args: ['--self-test'], env: { PORT: '0', SVC_WEBHOOK_SECRET: 'whsec_readme_example' } };

/** `{ args, env }` to run an example, or `{ skip }` saying why it is not run. */
export const EXAMPLES = {
  // Against the built-in emulator when SVC_BASE_URL is not set.
  'typical-flow.mjs': { args: [], env: {} },
  'upload-progress.mjs': { args: [], env: {} },
  'agent-approvals.mjs': { args: [], env: {} },
  // `--self-test`: the receiver sends itself signed deliveries, checks the answers and exits.
  'express-receiver.mjs': receiver,
  'fastify-receiver.mjs': receiver,
  'fetch-receiver.mjs': receiver,
  'redis-dedupe.mjs': { skip: 'it serves until stopped and needs a Redis server' },
  'inbox-quickstart.mjs': { skip: 'it needs a Redis server: test/inbox/quickstart.test.ts runs it against one' },
  'bullmq-approval-workflow.mjs': { skip: 'it needs a Redis server: test/actions/workflow-bullmq.test.ts runs it against one, across a restart of every process' },
};

/** The `examples/*.mjs` files a markdown document links to. */
export function linkedExamples(markdown) {
  return [...new Set([...markdown.matchAll(/\]\((?:\.\/)?examples\/([\w.-]+\.m?js)\)/g)].map((match) => match[1]))];
}
