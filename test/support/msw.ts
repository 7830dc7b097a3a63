import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** The base URL every client under test points at; msw answers it. */
export const BASE_URL = 'https://svc.test';
/** A well-formed API key for tests. */
export const API_KEY = 'vdr_test_0123456789abcdef';

/** One msw server per test file: unhandled requests fail the test, handlers reset after each. */
export function useMockService() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** Collects every request msw sees, cloned so tests can read bodies after the handler did. */
export function recordRequests(server: ReturnType<typeof setupServer>): Request[] {
  const requests: Request[] = [];
  server.events.on('request:start', ({ request }) => {
    requests.push(request.clone());
  });
  return requests;
}
