"""Loaded into every Python process of an offline test (PYTHONPATH): any attempt to reach the
network is written to $REFEREE_NET_LOG and refused. Local (unix) sockets are allowed."""

import os
import sys

_LOG = os.environ.get("REFEREE_NET_LOG")
_WATCHED = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.sendto",
            "urllib.Request", "http.client.connect"}  # fmt: skip


def _hook(event, args):
    if event not in _WATCHED or not _LOG:
        return
    target = args[1] if event in ("socket.connect", "socket.sendto") else args[0]
    if isinstance(target, str | bytes) and event in ("socket.connect", "socket.sendto"):
        return  # an AF_UNIX path: a local socket, not the network
    with open(_LOG, "a") as log:
        log.write(f"{os.getpid()} {event} {target!r}\n")
    raise OSError(f"network access blocked by the offline test: {event} {target!r}")


sys.addaudithook(_hook)
