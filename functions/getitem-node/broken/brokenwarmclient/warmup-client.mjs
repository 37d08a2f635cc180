// The client the warm-up calls through, in the deliberately broken build brokenwarmclient.

/** warmupClient is a second client with an agent, and so a connection pool, of its own: the
 * warm-up then warms a connection the handler never uses, as a warm-up on a client other than
 * the handler's does, and claim T3's test must catch it. */
export function warmupClient(client, another) {
  return another();
}
