// The client the warm-up calls through. The broken build brokenwarmclient replaces this file
// (broken/brokenwarmclient/warmup-client.mjs).

/** warmupClient is the client the warm-up calls through: the handler's own, so that the
 * connection it leaves in the agent's pool is the one the handler's first call takes (claim
 * T3). another, which makes a client with an agent of its own, is the broken build's. */
export function warmupClient(client, another) {
  return client;
}
