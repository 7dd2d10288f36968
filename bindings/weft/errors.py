"""weft's exceptions. The C++ core raises these classes directly (bindings/src/module.cpp), with the
fields of its ConfigError (sim/core/errors.h)."""


class ConfigError(ValueError):
    """Bad user input: a scenario file, a key, a value. `file`, `line`, `column` (1-based) and `key`
    say where (None when unknown): the innermost place, the one to change. `message` is what was
    expected; str(error) is the whole message as printed, with the enclosing places first."""

    def __init__(self, message="", *, file=None, line=None, column=None, key=None, text=None):
        self.message = str(message)
        self.file, self.line, self.column, self.key = file, line, column, key
        if text is None:
            where = file if line is None else f"{file}:{line}:{column}"
            text = (f"{where}: " if file is not None else "") + (f"{key}: " if key else "") + self.message
        super().__init__(text)
        self.yaml_text = None  # the YAML weft generated, when the scenario was changed in Python


class ModelError(RuntimeError):
    """A model cannot do what it was asked (no route, a PFC deadlock that never clears, ...)."""
