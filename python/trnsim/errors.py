"""The exceptions trnsim raises. Each carries the library's one-line
message and, where known, the fields of the failing instruction."""


class Error(Exception):
    """Base of every trnsim error.

    Attributes: message (the one line the CLI prints), file (the config or
    program it is about), instruction (index in the instruction list), core,
    opcode (IT number) and opcode_name; None where not known.
    """

    def __init__(self, message, file=None, instruction=None, core=None, opcode=None, opcode_name=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.instruction = instruction
        self.core = core
        self.opcode = opcode
        self.opcode_name = opcode_name

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.instruction, self.core, self.opcode, self.opcode_name))


class ConfigError(Error):
    """The config, a module setting or a KEY=VALUE override."""


class ModuleError(Error):
    """A module (or libtrnsim itself) not found, refused or failing to start."""


class ProgramError(Error):
    """A program that does not parse or does not validate."""


class InputError(Error, ValueError):
    """An input or output that does not match its tensor (name, shape, dtype, core)."""


class RunError(Error):
    """An instruction failed while running."""


class UsageError(Error):
    """A call out of order (no program loaded, a closed simulator)."""


# trnsim_error_kind -> class
KIND_CLASSES = {1: ConfigError, 2: ModuleError, 3: ProgramError, 4: InputError, 5: RunError, 6: UsageError}
