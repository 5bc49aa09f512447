"""Walks a model parsed by the generated client beside the JSON the server sent.

A field the server sent must be a declared attribute of its model (not an undocumented extra kept in
`additional_properties`), hold a value (never Unset), and equal what was sent, recursively; every
number must be finite. Only models with no declared attribute (the document's maps keyed by symbol)
keep their content in `additional_properties`.
"""

import math
from datetime import date, datetime
from enum import Enum

import attrs
from risk_client.types import Unset


class FieldReader:
    def __init__(self):
        self.problems = []
        self.fields = 0
        self.models = 0

    def read(self, value, raw, where):
        if attrs.has(type(value)):
            self._model(value, raw, where)
        elif isinstance(value, list):
            if not isinstance(raw, list) or len(raw) != len(value):
                self.problems.append(f"{where}: a list of {len(value)}, the server sent {raw!r:.80}")
                return
            for i, (v, r) in enumerate(zip(value, raw)):
                self.read(v, r, f"{where}[{i}]")
        elif isinstance(value, dict):
            self._entries(value, raw, where)
        else:
            self._leaf(value, raw, where)

    def _model(self, value, raw, where):
        self.models += 1
        if not isinstance(raw, dict):
            self.problems.append(f"{where}: a {type(value).__name__}, the server sent {raw!r:.80}")
            return
        declared = [a.name for a in attrs.fields(type(value)) if a.name != "additional_properties"]
        extra = getattr(value, "additional_properties", {})
        if not declared:
            self._entries(extra, raw, where)
            return
        if extra:
            self.problems.append(f"{where}: undocumented fields {sorted(extra)} in {type(value).__name__}")
        for name in declared:
            # The generator renames Python keywords with a trailing underscore (type_, return_).
            key = name if name in raw or not name.endswith("_") else name[:-1]
            attr = getattr(value, name)
            if key not in raw:
                if not isinstance(attr, Unset):
                    self.problems.append(f"{where}.{key}: the model holds {attr!r:.80}, the server sent none")
            elif isinstance(attr, Unset):
                self.problems.append(f"{where}.{key}: sent but Unset in {type(value).__name__}")
            else:
                self.read(attr, raw[key], f"{where}.{key}")

    def _entries(self, value, raw, where):
        if not isinstance(raw, dict) or set(raw) != set(value):
            self.problems.append(f"{where}: keys {sorted(value)}, the server sent {raw!r:.80}")
            return
        for k, v in value.items():
            self.read(v, raw[k], f"{where}.{k}")

    def _leaf(self, value, raw, where):
        self.fields += 1
        plain = value.value if isinstance(value, Enum) else value
        if isinstance(value, date) and isinstance(raw, str):
            # format date / date-time: parsed by the generated models with fromisoformat.
            raw = (datetime if isinstance(value, datetime) else date).fromisoformat(raw)
        if isinstance(plain, float) and not math.isfinite(plain):
            self.problems.append(f"{where}: {plain} is not finite")
        elif isinstance(value, Unset) or plain != raw or isinstance(plain, bool) != isinstance(raw, bool):
            self.problems.append(f"{where}: read {value!r:.80}, the server sent {raw!r:.80}")
