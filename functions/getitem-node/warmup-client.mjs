// The client the warm-up calls through. The broken build brokenwarmclient replaces this file
// (broken/brokenwarmclient/warmup-client.mjs).

/** warmupClient is the client the warm-up calls through: the handler's own, so that the
 * connection it leaves in the agent's pool is the one the handler's first call takes (claim
 * T3). index.mjs also passes another, which makes a client with an agent of its own: only the
 * broken build's warmupClient uses it. */
export function warmupClient(client) {
  return client;
}
