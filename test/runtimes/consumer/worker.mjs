// A Cloudflare Worker module that runs the scenario on each request (`?api=<base url>`), bundled
// from the packed package the way wrangler does, and run by workerd without nodejs_compat.
import * as sdk from 'svc-sdk';
import * as webhooks from 'svc-sdk/webhooks';
import { explain, runScenario } from './scenario.mjs';

export default {
  async fetch(request) {
    const api = new URL(request.url).searchParams.get('api');
    try {
      // Without nodejs_compat there is no `process`: proves the Node shims are really off.
      if (typeof globalThis.process !== 'undefined') throw new Error('process exists: nodejs_compat is on');
      const observed = await runScenario({ sdk, webhooks, baseUrl: api, label: 'workerd' });
      return Response.json({ ok: true, observed });
    } catch (error) {
      return Response.json({ ok: false, error: explain(error) }, { status: 500 });
    }
  },
};
