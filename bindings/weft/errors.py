"""weft's exceptions. The C++ core raises these classes directly (bindings/src/module.cpp)."""
import re

# Every scenario error starts with where it is: "file:line:column: key: what was expected"
# (scenarios/yaml_reader.cpp), or "file:line:column: unknown key 'k'".
_WHERE = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): (?P<rest>.*)$", re.S)
_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.\-\[\]]*): ")
_UNKNOWN = re.compile(r"unknown key '(?P<key>[^']*)'")


class ConfigError(ValueError):
    """Bad user input: a scenario file, a key, a value. `file`, `line`, `column` (1-based) and `key`
    say where, when the message does (None otherwise)."""

    def __init__(self, message=""):
        super().__init__(message)
        self.message = str(message)
        self.file = self.line = self.column = self.key = None
        self.yaml_text = None  # the YAML weft generated, when the scenario was changed in Python
        m = _WHERE.match(self.message)
        if m:
            self.file = m["file"]
            self.line = int(m["line"])
            self.column = int(m["column"])
            rest = m["rest"]
            k = _KEY.match(rest) or _UNKNOWN.search(rest)
            if k:
                self.key = k["key"]
        else:
            k = _KEY.match(self.message)
            if k and not k["key"].endswith((".yaml", ".yml")):
                self.key = k["key"]


class ModelError(RuntimeError):
    """A model cannot do what it was asked (no route, a PFC deadlock that never clears, ...)."""
