"""The site's Redis clients read Redis's answers with hiredis's parser (in C), not redis-py's own
in Python: the cache and limits (synchronous) and the channel layer (asyncio)."""

import redis.asyncio.connection
import redis.connection
import redis.utils


def test_hiredis_is_installed():
    assert redis.utils.HIREDIS_AVAILABLE


def test_the_synchronous_clients_use_it():
    pool = redis.ConnectionPool.from_url("redis://127.0.0.1:6379/0")
    connection = pool.make_connection()
    assert type(connection._parser).__name__ == "_HiredisParser"


def test_the_asyncio_clients_use_it():
    assert redis.asyncio.connection.DefaultParser.__name__ == "_AsyncHiredisParser"
