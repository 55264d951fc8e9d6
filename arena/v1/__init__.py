"""Generated gRPC/protobuf code for the Arena bot protocol, version 1.

Do not edit ``bot_pb2.py``, ``bot_pb2_grpc.py`` or ``bot_pb2.pyi``: change
``protos/arena/v1/bot.proto`` and run ``python -m arena.protocol.codegen``.
Import as ``from arena.v1 import bot_pb2, bot_pb2_grpc``.
"""
