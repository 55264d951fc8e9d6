"""A gRPC server that answers every unary call at once with an empty reply: the floor of
``arena bench host`` (what any Python grpcio call costs on this machine, with nothing in it).

Run by the benchmark as ``python -m arena.bench.empty_server --address 127.0.0.1:PORT``; it
serves like the SDK does (a thread pool of 16 workers, Decide a registered method taking and
giving bytes) and exits when its stdin closes.
"""

from __future__ import annotations

import argparse
import os
import sys
from concurrent import futures

import grpc


def _empty(request: bytes, context: grpc.ServicerContext) -> bytes:
    return b""


class _Handler(grpc.GenericRpcHandler):
    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        return grpc.unary_unary_rpc_method_handler(_empty)  # raw bytes both ways


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.bench.empty_server", description=__doc__)
    parser.add_argument("--address", required=True, help="where to listen: HOST:PORT or unix:PATH")
    args = parser.parse_args(argv)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((_Handler(),))
    # Decide as a registered method, as the SDK registers its methods (grpc's quicker lookup)
    server.add_registered_method_handlers("arena.v1.Bot", {"Decide": grpc.unary_unary_rpc_method_handler(_empty)})
    if not server.add_insecure_port(args.address):
        print(f"cannot listen on {args.address}", file=sys.stderr)
        return 1
    server.start()
    try:
        while os.read(sys.stdin.fileno(), 65536):
            pass
    except OSError:
        pass
    server.stop(0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
