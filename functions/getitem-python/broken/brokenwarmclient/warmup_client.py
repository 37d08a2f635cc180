"""warmup_client, in the deliberately broken build (brokenwarmclient): a client of its own.

The warm-up then warms a connection the handler never uses, as a warm-up on a client other than
the handler's does, and claim T3's test must catch it.
"""


def warmup_client(client, new_client):
    """A second client to client's endpoint, with an HTTP session and pool of its own."""
    return new_client(client.meta.endpoint_url)
