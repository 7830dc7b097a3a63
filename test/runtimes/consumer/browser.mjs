// The page script: runs the scenario in the browser against the API on another origin (CORS),
// and leaves the outcome on `window.__svcOutcome` for the driver to read.
import * as sdk from 'svc-sdk';
import * as webhooks from 'svc-sdk/webhooks';
import { explain, runScenario } from './scenario.mjs';

const api = new URL(location.href).searchParams.get('api');
window.__svcOutcome = runScenario({ sdk, webhooks, baseUrl: api, label: 'chromium' }).then(
  (observed) => ({ ok: true, observed }),
  (error) => ({ ok: false, error: explain(error) }),
);
