"""warmup_client: the warm-up's client (replaced by broken/brokenwarmclient/warmup_client.py)."""


def warmup_client(client, new_client):
    """The client the warm-up calls through: the handler's own, so that the connection it leaves
    in the pool is the one the handler's first call takes (claim T3). new_client is unused."""
    return client
