"""Engine dicts <-> protocol messages by the message's own field list (for a game's wire kit).

A game whose engine data (observation, action, board, event dicts) is shaped like
its ``oneof`` messages needs no hand-written conversion: :class:`DictCodec` walks
the message descriptor.  The conventions, which a game's proto messages follow:

- a dict becomes a message; its keys are the field names (a missing or unknown key
  raises :class:`~arena.protocol.wire_checks.CodecError` naming it, so a field the
  engine adds without a matching protocol field fails loudly, never vanishes);
- a list becomes a repeated field; a dict a ``map``; a nested dict a message;
- a message whose only field is a repeated one (a *list message*, e.g.
  ``ShareNumbers { repeated int32 numbers = 1; }``) stands for a plain list, so
  ``map<string, ShareNumbers>`` is ``{"PRR": [1, 4]}``;
- ``None`` is an unset field with presence (``optional`` or a message); decoding
  gives ``None`` back, or leaves the key out for the fields named in ``absent``
  (a key the engine writes only sometimes, e.g. a card shown to its drawer only);
- ``fields`` overrides one field's conversion both ways (e.g. ``""`` <-> ``None``
  in a repeated string, where protobuf has no null).

Field names in ``absent`` and ``fields`` are ``"Message.field"`` with the message's
name relative to the package (``"TicketToRidePennsylvaniaEvent.Blind.card"``).
Decoding gives keys in field order; count maps in the order the message holds them
(dict equality does not depend on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message_factory import GetMessageClass

from arena.protocol.wire_checks import CodecError, check_keys

Convert = Callable[[Any], Any]


def _relative(descriptor: Descriptor) -> str:
    package = descriptor.file.package
    name = descriptor.full_name
    return name[len(package) + 1:] if package and name.startswith(package + ".") else name


def is_list_message(descriptor: Descriptor | None) -> bool:
    """A message whose only field is repeated (and no map): it stands for a plain list."""
    if descriptor is None or len(descriptor.fields) != 1:
        return False
    only = descriptor.fields[0]
    return only.is_repeated and not _is_map(only)


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


class DictCodec:
    """Encode dicts as messages of one descriptor tree and decode them back (see module doc)."""

    def __init__(self, *, absent: frozenset[str] = frozenset(),
                 fields: Mapping[str, tuple[Convert, Convert]] | None = None) -> None:
        self.absent = absent
        self.fields = dict(fields or {})
        self._encoders: dict[str, Callable[[Any, str], Any]] = {}
        #: per message, its fields' (conversion, has presence), for :meth:`field_bytes`
        self._steps: dict[str, dict[str, tuple[Callable[[Any, str], Any], bool]]] = {}
        self._decoders: dict[str, Callable[[Any], Any]] = {}

    # -- encoding ------------------------------------------------------------------

    def encode(self, descriptor: Descriptor, data: Any, where: str) -> Any:
        """A message of ``descriptor`` built from ``data`` (checked)."""
        encoder = self._encoders.get(descriptor.full_name)
        if encoder is None:
            encoder = self._encoders[descriptor.full_name] = self._make_encoder(descriptor)
        return encoder(data, where)

    def _value_encoder(self, field: FieldDescriptor) -> Callable[[Any, str], Any]:
        """How one non-repeated value (or one element of a repeated field) is converted."""
        inner = field.message_type
        if inner is None:
            return lambda value, where: value
        if is_list_message(inner):
            cls = GetMessageClass(inner)
            name = inner.fields[0].name
            element = self._value_encoder(inner.fields[0])

            def wrap(value: Any, where: str) -> Any:
                if not isinstance(value, list):
                    raise CodecError(f"{where}: expected a list, got {type(value).__name__}")
                try:
                    return cls(**{name: [element(v, f"{where}[{i}]") for i, v in enumerate(value)]})
                except (TypeError, ValueError) as exc:
                    raise CodecError(f"{where}: {exc}") from exc
            return wrap
        return lambda value, where: self.encode(inner, value, where)

    def _make_encoder(self, descriptor: Descriptor) -> Callable[[Any, str], Any]:
        cls = GetMessageClass(descriptor)
        prefix = _relative(descriptor)
        required = []
        optional = []
        steps: list[tuple[str, Callable[[Any, str], Any], bool]] = []
        for field in descriptor.fields:
            name = field.name
            if f"{prefix}.{name}" in self.absent:
                optional.append(name)
            else:
                required.append(name)
            override = self.fields.get(f"{prefix}.{name}")
            if _is_map(field):
                value_field = field.message_type.fields_by_name["value"]
                element = self._value_encoder(value_field)

                def convert(value: Any, where: str, element: Any = element) -> Any:
                    if not isinstance(value, Mapping):
                        raise CodecError(f"{where}: expected a dict, got {type(value).__name__}")
                    return {k: element(v, f"{where}[{k!r}]") for k, v in value.items()}
            elif field.is_repeated:
                element = self._value_encoder(field)
                if field.message_type is None:
                    def convert(value: Any, where: str) -> Any:
                        if not isinstance(value, list):
                            raise CodecError(f"{where}: expected a list, got {type(value).__name__}")
                        return value
                else:
                    def convert(value: Any, where: str, element: Any = element) -> Any:
                        if not isinstance(value, list):
                            raise CodecError(f"{where}: expected a list, got {type(value).__name__}")
                        return [element(v, f"{where}[{i}]") for i, v in enumerate(value)]
            else:
                convert = self._value_encoder(field)
            if override is not None:
                to_wire = override[0]
                convert = (lambda value, where, to_wire=to_wire, then=convert: then(to_wire(value), where))
            steps.append((name, convert, field.has_presence))
        nullable = tuple(name for name, _, presence in steps if presence)
        label = prefix
        self._steps[descriptor.full_name] = {name: (convert, presence) for name, convert, presence in steps}

        def encode(data: Any, where: str) -> Any:
            if not isinstance(data, Mapping):
                raise CodecError(f"{where}: expected a dict ({label}), got {type(data).__name__}")
            if len(data) != len(required) or not all(k in data for k in required):
                check_keys(data, where, required, optional, nullable)
            kwargs = {}
            for name, convert, presence in steps:
                if name not in data:
                    continue
                value = data[name]
                if value is None:
                    if not presence:
                        raise CodecError(f"{where}: None is not allowed for {name!r}")
                    continue
                kwargs[name] = convert(value, f"{where}.{name}")
            try:
                return cls(**kwargs)
            except (TypeError, ValueError) as exc:
                raise CodecError(f"{where}: {exc}") from exc

        return encode

    def field_bytes(self, descriptor: Descriptor, name: str, value: Any, where: str) -> bytes:
        """The wire bytes of field ``name`` of a ``descriptor`` message set from ``value`` alone
        (``b""`` for None or a default).  A message's fields' bytes, joined in field-number
        order, parse as the whole message: a fast encoder keeps the bytes of the fields that
        did not change."""
        if descriptor.full_name not in self._steps:
            self._encoders[descriptor.full_name] = self._make_encoder(descriptor)
        convert, presence = self._steps[descriptor.full_name][name]
        if value is None:
            if not presence:
                raise CodecError(f"{where}: None is not allowed for {name!r}")
            return b""
        try:
            message = GetMessageClass(descriptor)(**{name: convert(value, f"{where}.{name}")})
        except (TypeError, ValueError) as exc:
            raise CodecError(f"{where}: {name!r}: {exc}") from exc
        return message.SerializeToString(deterministic=True)

    # -- decoding ------------------------------------------------------------------

    def decode(self, message: Any) -> dict[str, Any]:
        """The dict of ``message`` (keys in field order)."""
        descriptor = message.DESCRIPTOR
        decoder = self._decoders.get(descriptor.full_name)
        if decoder is None:
            decoder = self._decoders[descriptor.full_name] = self._make_decoder(descriptor)
        return decoder(message)

    def _value_decoder(self, field: FieldDescriptor) -> Convert:
        inner = field.message_type
        if inner is None:
            return lambda value: value
        if is_list_message(inner):
            name = inner.fields[0].name
            element = self._value_decoder(inner.fields[0])
            if inner.fields[0].message_type is None:
                return lambda value: list(getattr(value, name))
            return lambda value: [element(v) for v in getattr(value, name)]
        return self.decode

    def field_decoders(self, descriptor: Descriptor) -> dict[str, Convert]:
        """Per field of ``descriptor`` (in :meth:`decode`'s order), a function of the message
        giving that key's value as :meth:`decode` does (None for an unset field with presence),
        to decode one key alone.  A field named in ``absent`` (a key :meth:`decode` may leave
        out) has none: ValueError."""
        out: dict[str, Convert] = {}
        for name, convert, presence, absent in self._decode_steps(descriptor):
            if absent:
                raise ValueError(f"{descriptor.full_name}.{name} may be absent: it has no decoder of its own")
            if presence:
                out[name] = (lambda message, name=name, convert=convert:
                             convert(getattr(message, name)) if message.HasField(name) else None)
            else:
                out[name] = lambda message, name=name, convert=convert: convert(getattr(message, name))
        return out

    def _make_decoder(self, descriptor: Descriptor) -> Callable[[Any], dict[str, Any]]:
        steps = self._decode_steps(descriptor)

        def decode(message: Any) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for name, convert, presence, absent in steps:
                if presence and not message.HasField(name):
                    if not absent:
                        out[name] = None
                    continue
                out[name] = convert(getattr(message, name))
            return out

        return decode

    def _decode_steps(self, descriptor: Descriptor) -> list[tuple[str, Convert, bool, bool]]:
        """Per field: its name, how its value converts, whether it has presence, whether it is ``absent``."""
        prefix = _relative(descriptor)
        steps: list[tuple[str, Convert, bool, bool]] = []
        for field in descriptor.fields:
            name = field.name
            if _is_map(field):
                element = self._value_decoder(field.message_type.fields_by_name["value"])
                convert: Convert = lambda values, element=element: {k: element(v) for k, v in values.items()}  # noqa: E731
            elif field.is_repeated:
                element = self._value_decoder(field)
                if field.message_type is None:
                    convert = list
                else:
                    convert = lambda values, element=element: [element(v) for v in values]  # noqa: E731
            else:
                convert = self._value_decoder(field)
            override = self.fields.get(f"{prefix}.{name}")
            if override is not None:
                from_wire = override[1]
                convert = (lambda value, from_wire=from_wire, then=convert: from_wire(then(value)))
            steps.append((name, convert, field.has_presence, f"{prefix}.{name}" in self.absent))
        return steps


__all__ = ["CodecError", "DictCodec", "is_list_message"]
