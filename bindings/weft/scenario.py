"""A scenario as a nested dict: read, modify and copy it in Python; weft.run() hands it to the C++
core as YAML text (the one door for YAML stays scenarios/ in C++, which checks every key)."""
import copy
import os
import pathlib

import yaml

from . import _core
from .errors import ConfigError


def _plain(value):
    """Plain dicts, lists and Python scalars (numpy scalars included), for yaml.safe_dump."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return value.item()
    if isinstance(value, pathlib.PurePath):
        return str(value)
    return value


class Scenario(dict):
    """A scenario's YAML as a dict. `path` is the file it came from (relative paths inside it, such
    as trace files, resolve against its folder); `base_dir` is that folder, or the working directory
    for a scenario made from a dict or text."""

    def __init__(self, data=None, path=None, base_dir=None, text=None):
        super().__init__(data or {})
        self.path = str(path) if path else None
        self.base_dir = str(base_dir or (os.path.dirname(os.path.abspath(path)) if path else os.getcwd()))
        self._text = text  # the original YAML, kept while the dict is unchanged (exact line numbers)
        self._pristine = copy.deepcopy(dict(self)) if text is not None else None

    def copy(self):
        """A deep copy (nested dicts and lists are copied too)."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo):
        out = Scenario(copy.deepcopy(dict(self), memo), base_dir=self.base_dir)
        out.path = self.path
        out._text, out._pristine = self._text, copy.deepcopy(self._pristine, memo)
        return out

    def __reduce__(self):
        return (_rebuild, (dict(self), self.path, self.base_dir, self._text, self._pristine))

    def lookup(self, key, default=KeyError):
        """The value at a dotted key ("system.node.nic")."""
        node = self
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                if default is KeyError:
                    raise KeyError(key)
                return default
            node = node[part]
        return node

    def set(self, key, value):
        """Sets a dotted key ("workload.batch.global"), making the maps on the way; returns self."""
        parts = key.split(".")
        node = self
        for i, part in enumerate(parts[:-1]):
            nxt = node.get(part)
            if nxt is None:
                nxt = node[part] = {}
            elif not isinstance(nxt, dict):
                raise ConfigError(f"is {nxt!r}, not a map, so {key} cannot be set", key=".".join(parts[:i + 1]))
            node = nxt
        node[parts[-1]] = value
        return self

    def with_values(self, values):
        """A copy with each dotted key of `values` set."""
        out = self.copy()
        for k, v in values.items():
            out.set(k, v)
        return out

    @property
    def source(self):
        """What the C++ loader is told the file is: names it in errors, anchors relative paths."""
        return self.path or os.path.join(self.base_dir, "<scenario>.yaml")

    def to_yaml(self):
        """The YAML text weft runs: the original file while unchanged, else generated."""
        if self._text is not None and dict(self) == self._pristine:
            return self._text
        return yaml.safe_dump(_plain(dict(self)), sort_keys=False, default_flow_style=False, allow_unicode=True)

    def validate(self):
        """Reads the scenario and every compare: variant in C++ (no run); their names. Raises ConfigError."""
        text = self.to_yaml()
        try:
            return _core.validate(text, self.source)
        except ConfigError as e:
            raise _annotated(e, self, text) from None

    def __repr__(self):
        where = f" from {self.path}" if self.path else ""
        return f"<weft.Scenario {self.get('name', '(unnamed)')!r}{where}: {dict.__repr__(self)}>"


def _rebuild(data, path, base_dir, text, pristine):
    s = Scenario(data, path=path, base_dir=base_dir)
    s._text, s._pristine = text, pristine
    return s


def _annotated(error, scenario, text):
    """A ConfigError from generated YAML: line numbers refer to that text, which it carries."""
    if text is not scenario._text:
        error.yaml_text = text
        error.args = (str(error) + " (the line is in the YAML generated from the changed scenario: "
                      "see the error's .yaml_text)",)
    return error


def load(source=None, *, validate=True):
    """A Scenario from a file path, a dict, YAML text, or (None) weft's bundled default scenario.
    A file or text is checked by the C++ loader at once (validate=False skips it)."""
    if isinstance(source, Scenario):
        return source.copy()
    if isinstance(source, dict):
        s = Scenario(copy.deepcopy(source))
    elif source is None:
        text = _core.default_scenario_text()
        s = Scenario(yaml.safe_load(text), text=text)
    elif isinstance(source, (str, os.PathLike)):
        text_like = isinstance(source, str) and ("\n" in source or (":" in source and not os.path.exists(source)))
        if text_like:
            data = yaml.safe_load(source)
            if not isinstance(data, dict):
                raise ConfigError("expected a YAML mapping (key: value lines) at the top", file="<text>", line=1, column=1)
            s = Scenario(data, text=source)
        else:
            path = os.path.abspath(os.fspath(source))
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                raise ConfigError(f"cannot open the file ({e.strerror})", file=path) from None
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError:
                data = None  # the C++ loader says where
            if not isinstance(data, dict):
                _core.validate(text, path)
                raise ConfigError("expected a YAML mapping (key: value lines) at the top", file=path, line=1, column=1)
            s = Scenario(data, path=path, text=text)
    else:
        raise TypeError(f"weft.load: expected a path, a dict or YAML text, got {type(source).__name__}")
    if validate and s._text is not None:
        s.validate()
    return s
